package facts

// Input names one kind of thing a preview reads of the fleet. Every read of the view
// (view.Fleet) is of one input, keyed by what it read (a fleet, a placement, a cluster…); what
// moved between a plan and its apply is said per input, so a user sees which input of the
// reviewed preview the fleet changed.
type Input string

// The inputs, in the order what moved is said.
const (
	InputClock             Input = "clock"
	InputFleetClock        Input = "Fleet API clock"
	InputSettings          Input = "preview settings"
	InputHubMembers        Input = "hub member clusters"
	InputPlacements        Input = "hub placements"
	InputRunInputs         Input = "staged run inputs"
	InputSelectedResources Input = "selected resources"
	InputOverrideSnapshots Input = "override snapshots"
	InputFleetMembers      Input = "fleet members"
	InputWindows           Input = "maintenance windows"
	InputStrategies        Input = "update strategies"
	InputRegions           Input = "AKS regions"
	InputKarpenter         Input = "Karpenter picture"
)

// Inputs lists every input.
var Inputs = []Input{InputClock, InputFleetClock, InputSettings, InputHubMembers, InputPlacements, InputRunInputs,
	InputSelectedResources, InputOverrideSnapshots, InputFleetMembers, InputWindows, InputStrategies, InputRegions, InputKarpenter}

// Read is one read of an input: Key is what of it was read (a fleet's ID for its members,
// windows and strategies, with "/name" for one strategy; a placement's key; a namespace; a staged
// run; a region; a cluster's name), "" for the inputs that are one thing (clocks, settings, the
// hub's member clusters and placements).
type Read struct {
	Input Input
	Key   string
}
