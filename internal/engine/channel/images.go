package channel

import (
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
)

// NodeImageSelection is fleets.json 2026-06-01 AutoUpgradeNodeImageSelectionType.
type NodeImageSelection string

const (
	// LatestImages: "Use the latest image version when upgrading nodes. Clusters may use different image
	// versions ... because, for example, the latest available version is different in different regions."
	// (fleets.json 2026-06-01).
	LatestImages NodeImageSelection = "Latest"
	// ConsistentImages: "for each node pool in managed clusters affected by the update run, the system
	// selects the latest image version such that it is available across all other node pools (in all
	// other clusters) of the same image type. As a result, all node pools of the same image type will be
	// upgraded to the same image version." (fleets.json 2026-06-01).
	ConsistentImages NodeImageSelection = "Consistent"
)

// SelectNodeImages sets the NodeImage channel's target t under the profile's node image selection sel
// (fleets.json 2026-06-01 AutoUpgradeNodeImageSelectionType, quoted on the constants) over the members
// its runs update and their regions' tables:
//   - Latest (and unset, the service's default): each member's pools take the newest image of their
//     type in the member's own region (MemberActions); t.NodeImages stays the newest of each type
//     anywhere.
//   - Consistent: one version per image type for the whole run, the newest every region of a member
//     running that type offers — the update run's own Consistent rule, rollout.ConsistentNodeImages,
//     called here rather than copied. Image types with no common version are t.NoConsistentImage; a
//     run skips their pools' members ("When consistent node image is selected and it's not possible to
//     find the target image version for one of the node pools", concepts-update-orchestration.md
//     "Skipped status").
//
// Kubernetes channels are left as they are (MemberActions compares the control plane only).
func SelectNodeImages(t Target, sel NodeImageSelection, members []rollout.Member, regions map[string]VersionTable) Target {
	t.Selection = sel
	if t.Channel != NodeImage || sel != ConsistentImages {
		return t
	}
	byLoc := make(map[string]VersionTable, len(regions))
	for loc, tab := range regions {
		byLoc[normalizeLocation(loc)] = tab
	}
	offered := map[string]rollout.Region{}
	for _, m := range members {
		offered[m.Location] = rollout.Region{NodeImages: byLoc[normalizeLocation(m.Location)].NodeImages}
	}
	// The profile's tables hold no scheduled releases, so the time is irrelevant.
	sel2, missing := rollout.ConsistentNodeImages(members, offered, time.Time{})
	t.NodeImages, t.NoConsistentImage = sel2, missing
	return t
}
