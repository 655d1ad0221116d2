package rollout

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/channel"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/facts"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/session"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/view"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/backend"
	"github.com/fleetops/terraform-provider-fleet/internal/provider/preview"
)

// fleet_auto_upgrade_profile's preview: the channel resolved over the AKS version lists of the
// members' regions (engine/channel), and what a run of its target would do with each member.

// autoUpgradeProfilePreviewSpec is the profile's preview: what the channel resolves to and what
// a run of that target would do with each member.
var autoUpgradeProfilePreviewSpec = preview.Spec[autoUpgradeProfileModel]{
	What:      "the auto-upgrade profile preview",
	AttrTypes: aupPreviewAttrTypes,
	Follows:   aupPreviewInputs,
	Reads: []facts.Input{facts.InputSettings, facts.InputFleetMembers, facts.InputWindows, facts.InputStrategies,
		facts.InputRegions},
	Compute: func(ctx context.Context, v view.Fleet, m *autoUpgradeProfileModel, d *diag.Diagnostics) (attr.Value, error) {
		obj, err := aupPreview(ctx, v, *m, d)
		if err != nil {
			return nil, err
		}
		return obj, nil
	},
}

// aupLivePreview is the profile's preview over the live fleet (a profile read or applied without
// one planned), its failure an error.
func aupLivePreview(ctx context.Context, c *session.Session, m autoUpgradeProfileModel, d *diag.Diagnostics) types.Object {
	obj, err := aupPreview(ctx, c.View(), m, d)
	if err != nil {
		backend.AddBackendError(d, "Computing "+autoUpgradeProfilePreviewSpec.What, err)
		return types.ObjectNull(aupPreviewAttrTypes)
	}
	return obj
}

// aupPreview resolves the channel over the AKS version lists of the members' regions (and the
// node images the members run) and says what a run of the target would do with each member. A
// problem of the configuration is an error in d (and a null preview); a failed read is returned.
func aupPreview(ctx context.Context, v view.Fleet, m autoUpgradeProfileModel, d *diag.Diagnostics) (types.Object, error) {
	null := types.ObjectNull(aupPreviewAttrTypes)
	fleet, ok := previewFleet(m.FleetID, d)
	if !ok {
		return null, nil
	}
	inv, err := view.Members(ctx, v, fleet)
	if err != nil {
		return null, fmt.Errorf("reading the fleet's members: %w", err)
	}
	var members []rollout.Member
	var unreadable preview.UnreadableMembers
	for _, im := range inv {
		rm, ok := view.RolloutMember(im)
		if !ok {
			unreadable.Add(im.Name, im.ClusterErr)
			continue
		}
		members = append(members, rm)
	}
	if len(unreadable.Names) > 0 {
		d.AddAttributeWarning(path.Root("preview"), "Members left out of the preview", unreadable.Message(": they are left out of the preview"))
	}
	members, unselected, ok, err := selectedByStrategy(ctx, v, m, members, d)
	if !ok || err != nil {
		return null, err
	}
	regions := map[string]channel.VersionTable{}
	if len(members) > 0 {
		for _, rm := range members {
			if _, ok := regions[rm.Location]; ok {
				continue
			}
			values, err := v.KubernetesVersions(ctx, rm.Location)
			if err != nil {
				return null, fmt.Errorf("listing the Kubernetes versions of location %s (of member %s): %w", rm.Location, rm.Name, err)
			}
			tab, err := channel.TableFromAKS(values)
			if err != nil {
				d.AddError("Reading Kubernetes versions", fmt.Sprintf("Location %s: %v", rm.Location, err))
				return null, nil
			}
			regions[rm.Location] = tab
		}
		// A region offers the latest images of AKS's nodeImageVersions list and what its members run.
		locs := make([]string, 0, len(regions))
		for l := range regions {
			locs = append(locs, l)
		}
		images := view.RegionNodeImages(ctx, v, locs)
		if w := images.Warning(); w != "" {
			d.AddAttributeWarning(path.Root("preview"), "Node images from the members' pools only", w)
		}
		for loc, byFamily := range images.Images {
			tab := regions[loc]
			for family, vs := range byFamily {
				for _, v := range vs {
					tab.AddNodeImage(rollout.JoinNodeImage(family, v))
				}
			}
			regions[loc] = tab
		}
		for _, rm := range members {
			tab := regions[rm.Location]
			for _, p := range rm.NodePools {
				tab.AddNodeImage(p.NodeImageVersion)
			}
			regions[rm.Location] = tab
		}
		aupAssumeOlderImages(m, members, regions, images.Images, d)
	}
	return aupBuildPreview(m, members, unselected, regions, v.ListLimit(), d), nil
}

// aupAssumeOlderImages takes each region to offer the older images other regions list or members run, as
// the update-run preview does (rollout.AssumeOlderImagesOffered: AKS lists only each type's latest image), and
// warns when a Consistent NodeImage target rests on such an image.
func aupAssumeOlderImages(m autoUpgradeProfileModel, members []rollout.Member, regions map[string]channel.VersionTable, listed map[string]map[string][]string, d *diag.Diagnostics) {
	asRegions := make(map[string]rollout.Region, len(regions))
	for loc, tab := range regions {
		if tab.NodeImages == nil {
			tab.NodeImages = map[string][]string{}
			regions[loc] = tab
		}
		asRegions[loc] = rollout.Region{NodeImages: tab.NodeImages}
	}
	assumed := rollout.AssumeOlderImagesOffered(asRegions, listed)
	for loc, reg := range asRegions {
		tab := regions[loc]
		tab.NodeImages = reg.NodeImages
		regions[loc] = tab
	}
	sel := channel.NodeImageSelection(m.NodeImageSelectionType.ValueString())
	if channel.Channel(m.Channel.ValueString()) != channel.NodeImage || sel != channel.ConsistentImages {
		return
	}
	tg := channel.SelectNodeImages(channel.Target{Channel: channel.NodeImage}, sel, members, regions)
	var at []string
	for _, loc := range slices.Sorted(maps.Keys(assumed)) {
		for family, v := range tg.NodeImages {
			if slices.Contains(assumed[loc][family], v) {
				at = append(at, rollout.JoinNodeImage(family, v)+" in "+loc)
			}
		}
	}
	if len(at) > 0 {
		d.AddAttributeWarning(path.Root("preview").AtName("target_node_image_versions"), "Consistent node image assumed offered",
			fmt.Sprintf("The Consistent image rests on images a region's AKS list does not show (%s): AKS lists only the latest image "+
				"of each type, and the preview assumes a region still offers an older image another region lists or a member runs. "+
				"If AKS no longer offers it there, a run picks an older common image or skips the member.", strings.Join(at, ", ")))
	}
}

// aupUnselected is a profile preview's action for a member no group of the
// profile's update strategy selects: its generated runs never update it.
const aupUnselected channel.Action = "unselected"

// selectedByStrategy splits members into those the profile's update strategy
// selects and those it does not. concepts-update-orchestration.md: "Update
// groups are also used to order the application of updates to member
// clusters", and a run updates only the members its stages' groups select
// (a member in no group is not updated). Without a strategy every member is
// updated one by one. False when it could not: a problem of the
// configuration (an error in d), or the failed read (err).
func selectedByStrategy(ctx context.Context, v view.Fleet, m autoUpgradeProfileModel, members []rollout.Member, d *diag.Diagnostics) (selected, unselected []rollout.Member, ok bool, err error) {
	if m.UpdateStrategyID.IsNull() || m.UpdateStrategyID.ValueString() == "" {
		return members, nil, true, nil
	}
	fleet, name, err := fleetapi.ParseChildID(m.UpdateStrategyID.ValueString(), "updateStrategies")
	if err != nil {
		d.AddAttributeError(path.Root("update_strategy_id"), "Invalid update strategy ID", err.Error())
		return nil, nil, false, nil
	}
	// Under facts the strategy as the plan read it.
	st, err := v.UpdateStrategy(ctx, fleet, name)
	if err != nil {
		return nil, nil, false, fmt.Errorf("reading the profile's update strategy: %w", err)
	}
	// By update group name and, with the preview API, by member selector (engine/rollout selectors.go).
	reaches := func(string, map[string]string) bool { return false }
	if st != nil {
		reaches = rollout.ReachesLabeled(strategyToRollout(st))
	}
	for _, rm := range members {
		if reaches(rm.Group, rm.Labels) {
			selected = append(selected, rm)
		} else {
			unselected = append(unselected, rm)
		}
	}
	return selected, unselected, true, nil
}

// aupBuildPreview is the preview of a profile over members and their regions' tables, listing at
// most listLimit members (0: all) and counting every one.
func aupBuildPreview(m autoUpgradeProfileModel, members, unselected []rollout.Member, regions map[string]channel.VersionTable, listLimit int, d *diag.Diagnostics) types.Object {
	locs := make([]string, 0, len(regions))
	for l := range regions {
		locs = append(locs, l)
	}
	sort.Strings(locs)
	tables := make([]channel.VersionTable, 0, len(locs))
	for _, l := range locs {
		tables = append(tables, regions[l])
	}
	ch := channel.Channel(m.Channel.ValueString())
	if ch == channel.Channel(fleetapi.UpgradeChannelSecurityPatch) {
		return aupSecurityPatchPreview(members, unselected, listLimit, d)
	}
	tg, err := channel.Resolve(ch, channel.Options{TargetKubernetesVersion: m.TargetKubernetesVersion.ValueString(), LongTermSupport: m.LongTermSupport.ValueBool()}, channel.Union(tables...))
	target := types.StringNull()
	images := []attr.Value{}
	var rows []channel.MemberAction
	if err != nil {
		at := path.Root("channel")
		if ch == channel.TargetKubernetesVersion {
			at = path.Root("target_kubernetes_version")
		}
		d.AddAttributeWarning(at, "The channel resolves to no version now",
			fmt.Sprintf("Over the AKS version lists of the fleet's member regions (%s): %v. The profile triggers once AKS releases a version the channel resolves to.", strings.Join(locs, ", "), err))
		for _, rm := range members {
			rows = append(rows, channel.MemberAction{Name: rm.Name, CurrentKubernetesVersion: rm.KubernetesVersion, Action: channel.Skip,
				Reason: "the channel resolves to no version now: " + err.Error()})
		}
	} else {
		// The profile's node image selection decides what the NodeImage channel's runs move pools to.
		tg = channel.SelectNodeImages(tg, channel.NodeImageSelection(m.NodeImageSelectionType.ValueString()), members, regions)
		if tg.KubernetesVersion != "" {
			target = types.StringValue(tg.KubernetesVersion)
		}
		var full []string
		for family, v := range tg.NodeImages {
			full = append(full, rollout.JoinNodeImage(family, v))
		}
		sort.Strings(full)
		for _, v := range full {
			images = append(images, types.StringValue(v))
		}
		rows = channel.MemberActions(tg, members, regions)
	}
	return aupPreviewObject(append(rows, unselectedRows(unselected)...), target, images, listLimit)
}

// unselectedRows are the members the profile's update strategy does not select.
func unselectedRows(unselected []rollout.Member) []channel.MemberAction {
	var rows []channel.MemberAction
	for _, rm := range unselected {
		rows = append(rows, channel.MemberAction{Name: rm.Name, CurrentKubernetesVersion: rm.KubernetesVersion, Action: aupUnselected,
			Reason: fmt.Sprintf("neither its update group %q nor its labels are selected by a group of the update strategy: the profile's runs do not update it", rm.Group)})
	}
	return rows
}

// aupSecurityPatch is what the SecurityPatch channel (Fleet API 2026-11-01-preview) does with a
// selected member: "Applies security patches to the nodes of the target clusters." Which patches
// and when is AKS's and not published ahead, so the preview names no target.
const aupSecurityPatch channel.Action = "security_patch"

// aupSecurityPatchPreview is a SecurityPatch profile's preview: which members its runs patch.
func aupSecurityPatchPreview(members, unselected []rollout.Member, listLimit int, d *diag.Diagnostics) types.Object {
	d.AddAttributeWarning(path.Root("channel"), "SecurityPatch has no target at plan",
		"The SecurityPatch channel applies the security patches AKS releases for the members' nodes; which and when is not known at plan, "+
			"so the preview lists the members its runs patch (security_patch) without target versions.")
	var rows []channel.MemberAction
	for _, rm := range members {
		rows = append(rows, channel.MemberAction{Name: rm.Name, CurrentKubernetesVersion: rm.KubernetesVersion, TargetKubernetesVersion: rm.KubernetesVersion,
			Action: aupSecurityPatch, Reason: "its nodes get the security patches AKS releases; the Kubernetes version stays"})
	}
	return aupPreviewObject(append(rows, unselectedRows(unselected)...), types.StringNull(), []attr.Value{}, listLimit)
}

// aupPreviewObject lists at most listLimit of rows (0: all) and counts every one.
func aupPreviewObject(rows []channel.MemberAction, target types.String, images []attr.Value, listLimit int) types.Object {
	counts := map[string]int{}
	for _, a := range rows {
		counts[string(a.Action)]++
	}
	taken := preview.FirstToRead(len(rows), listLimit, func(i, j int) bool {
		if ri, rj := aupActionRank(rows[i].Action), aupActionRank(rows[j].Action); ri != rj {
			return ri < rj
		}
		return rows[i].Name < rows[j].Name
	})
	listed := map[string]attr.Value{}
	omitted := 0
	for i, a := range rows {
		if !taken[i] {
			omitted++
			continue
		}
		listed[a.Name] = aupMemberRow(a.CurrentKubernetesVersion, a.TargetKubernetesVersion, string(a.Action), a.Reason, a.TargetNodeImages)
	}
	return types.ObjectValueMust(aupPreviewAttrTypes, map[string]attr.Value{
		"target_kubernetes_version":  target,
		"target_node_image_versions": types.ListValueMust(types.StringType, images),
		"member_count":               types.Int64Value(int64(len(rows))),
		"actions":                    preview.CountMap(counts),
		"members":                    types.MapValueMust(types.ObjectType{AttrTypes: aupMemberAttrTypes}, listed),
		"members_omitted":            types.Int64Value(int64(omitted)),
	})
}

// aupActionRank orders a profile preview's members for a reader: what the channel leaves alone
// (skip) first, then upgrades, then members already at the target.
func aupActionRank(a channel.Action) int {
	switch a {
	case channel.Skip:
		return 0
	case channel.Upgrade:
		return 1
	}
	return 2
}

func aupMemberRow(current, target, action, reason string, images map[string]string) attr.Value {
	str := func(s string) types.String {
		if s == "" {
			return types.StringNull()
		}
		return types.StringValue(s)
	}
	imgs := types.MapNull(types.StringType)
	if images != nil {
		vs := make(map[string]attr.Value, len(images))
		for pool, v := range images {
			vs[pool] = types.StringValue(v)
		}
		imgs = types.MapValueMust(types.StringType, vs)
	}
	return types.ObjectValueMust(aupMemberAttrTypes, map[string]attr.Value{
		"current_kubernetes_version": str(current), "target_kubernetes_version": str(target),
		"action": types.StringValue(action), "reason": str(reason),
		"target_node_image_versions": imgs,
	})
}
