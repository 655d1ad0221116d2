package disruption

// What the external tests (package disruption_test) use of the package's own names.

const NodePoolFieldManager = nodePoolFieldManager

type FieldOwner = fieldOwner

var (
	FieldOwners               = fieldOwners
	NodeClaimGVR              = nodeClaimGVR
	NodePoolGVR               = nodePoolGVR
	NpOwnedPaths              = npOwnedPaths
	NpPathBudgets             = npPathBudgets
	NpPathConsolidateAfter    = npPathConsolidateAfter
	NpPathConsolidationPolicy = npPathConsolidationPolicy
	NpPathDoNotDisrupt        = npPathDoNotDisrupt
	NpPathExpireAfter         = npPathExpireAfter
	NpPathTerminationGrace    = npPathTerminationGrace
)
