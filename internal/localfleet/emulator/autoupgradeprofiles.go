package emulator

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/channel"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
)

// fleets/autoUpgradeProfiles: the Fleet RP's auto-upgrade. PUT, DELETE and
// generateUpdateRun are long-running operations that finish at once.
//
// The trigger. Fleet "automatically create[s] and start[s] UpdateRun when
// there are new released versions" (fleets.json AutoUpgradeLastTriggerStatus).
// The emulator resolves each profile's channel with the engine's channel rules
// (channel.Resolve over the union of the version tables of its members'
// regions at the simulated time, as the provider's preview does) every time it
// advances the fleet (every API request that reads or changes runs or
// profiles, and the runner's loop at least every 250ms of real time). It
// remembers the target it last saw (the baseline) and triggers when the target
// differs from it:
//   - Choice: creating a profile, or changing its channel, target version or
//     long-term support, sets the baseline to the current target and does not
//     trigger, even when members run older versions: a profile reacts to
//     releases ("a new version is released in the channel"); a run for the
//     current target is what generateUpdateRun is for. A channel that resolves
//     to nothing (e.g. a target minor not yet released) has the empty
//     baseline, so its first release triggers.
//   - Choice: a disabled profile moves its baseline without triggering;
//     enabling it again does not catch up on releases it missed.
//   - The run is named autoRunName(profile, target) and created as
//     generateUpdateRun creates it, then started at the simulated time of the
//     evaluation. A run of that name that exists already (generated and not
//     started) is started instead; one that has started is left alone.
//
// The run copies the profile's strategy (updateStrategyId snapshotted, or all
// members one by one without one), takes the profile's node image selection
// (Latest by default), and is Full to the target for the Kubernetes channels
// or NodeImageOnly for NodeImage. Members the channel leaves alone
// (channel.MemberActions: a downgrade, more than one minor version behind,
// outside the support window) are skipped in the run before it starts, with
// the channel's reason as their message.
//
// SecurityPatch (2026-11-01-preview only) is accepted at the preview version.
// Choice: it neither triggers nor generates a run: preview fleets.json says
// only "Applies security patches to the nodes of the target clusters", which
// names no target the emulator could upgrade to, so generateUpdateRun answers
// 501 NotImplemented saying so (testdata/oracle/rules.yaml
// security-patch-channel) rather than invent one.

const typeAutoUpgradeProfiles = providerNS + "/fleets/autoUpgradeProfiles"

// profileRecord is the store's value of a profile.
type profileRecord struct {
	api fleetapi.AutoUpgradeProfile
	// baseline is the channel target (targetKey) last seen.
	baseline string
}

func (s *Server) registerAutoUpgradeRoutes() {
	s.registerChild(&childKind{
		typ: typeAutoUpgradeProfiles, segment: "autoUpgradeProfiles", param: "profileName", label: "auto-upgrade profile",
		advance: true, view: viewOf(s.profileView), decode: decodeProfile, build: s.buildProfile,
	})
	s.router.handle(http.MethodPost, fleetPath+"/autoUpgradeProfiles/{profileName}/generateUpdateRun", fleetAPI, s.generateUpdateRun)
}

func profileOfRecord(rec *record) *profileRecord {
	pr, _ := rec.Value.(*profileRecord)
	return pr
}

func (s *Server) profileView(rec *record) fleetapi.AutoUpgradeProfile {
	pr := profileOfRecord(rec)
	v := pr.api
	props := *pr.api.Properties
	props.ProvisioningState = "Succeeded"
	v.Properties = &props
	v.ETag, v.SystemData = rec.ETag, s.systemData(rec)
	return v
}

// validateProfile checks a PUT body as fleets.json states the rules
// (preview: the request's api-version is the preview's, which adds
// SecurityPatch to UpgradeChannel).
func validateProfile(p *fleetapi.AutoUpgradeProfileProperties, preview bool) error {
	if p == nil || p.Channel == "" {
		return armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.channel is required.")
	}
	switch p.Channel {
	case fleetapi.UpgradeChannelStable, fleetapi.UpgradeChannelRapid, fleetapi.UpgradeChannelNodeImage, fleetapi.UpgradeChannelTargetKubernetesVersion:
	case fleetapi.UpgradeChannelSecurityPatch:
		if !preview {
			return armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.channel 'SecurityPatch' requires api-version %s.", fleetapi.PreviewAPIVersion)
		}
	default:
		return armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.channel '%s' is not one of Stable, Rapid, NodeImage, TargetKubernetesVersion.", p.Channel)
	}
	if p.Channel == fleetapi.UpgradeChannelTargetKubernetesVersion {
		if p.TargetKubernetesVersion == "" {
			return armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.targetKubernetesVersion must not be empty when properties.channel is TargetKubernetesVersion.")
		}
		if _, err := channel.ParseMinor(p.TargetKubernetesVersion); err != nil {
			return armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.targetKubernetesVersion '%s' must be {major version}.{minor version}, e.g. 1.30.", p.TargetKubernetesVersion)
		}
	} else {
		if p.TargetKubernetesVersion != "" {
			return armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.targetKubernetesVersion must be empty when properties.channel is %s.", p.Channel)
		}
		if p.LongTermSupport != nil && *p.LongTermSupport {
			return armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.longTermSupport must be false when properties.channel is %s.", p.Channel)
		}
	}
	if sel := p.NodeImageSelection; sel != nil && sel.Type != fleetapi.AutoUpgradeNodeImageLatest && sel.Type != fleetapi.AutoUpgradeNodeImageConsistent {
		return armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.nodeImageSelection.type '%s' is not one of Latest, Consistent.", sel.Type)
	}
	return nil
}

func nodeImageSelectionType(p *fleetapi.AutoUpgradeProfileProperties) fleetapi.AutoUpgradeNodeImageSelectionType {
	if p.NodeImageSelection == nil {
		return ""
	}
	return p.NodeImageSelection.Type
}

// decodeProfile reads a profile's PUT body.
func decodeProfile(r *http.Request) (any, error) {
	var body fleetapi.AutoUpgradeProfile
	if err := decodeBody(r, &body); err != nil {
		return nil, err
	}
	if err := validateProfile(body.Properties, isPreview(r)); err != nil {
		return nil, err
	}
	return *body.Properties, nil
}

// buildProfile makes the stored profile of a PUT (its runs stay when it
// is deleted). The caller holds w.mu.
func (s *Server) buildProfile(c childWrite) (any, bool, error) {
	props, _ := c.body.(fleetapi.AutoUpgradeProfileProperties)
	if props.UpdateStrategyID != "" {
		f, sname, err := fleetapi.ParseChildID(props.UpdateStrategyID, "updateStrategies")
		if err != nil || !strings.EqualFold(f.String(), c.fleet.ID) {
			return nil, false, armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.updateStrategyId: '%s' is not an update strategy of this fleet.", props.UpdateStrategyID)
		}
		if _, ok := s.world.store.get(c.fleet.ID + "/updateStrategies/" + sname); !ok && c.old == nil {
			return nil, false, armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.updateStrategyId: update strategy '%s' was not found.", sname)
		}
	}
	pr := &profileRecord{api: fleetapi.AutoUpgradeProfile{
		Resource: fleetapi.Resource{ID: c.id, Name: c.name, Type: typeAutoUpgradeProfiles},
		Properties: &fleetapi.AutoUpgradeProfileProperties{
			UpdateStrategyID: props.UpdateStrategyID, Channel: props.Channel, NodeImageSelection: props.NodeImageSelection,
			Disabled: props.Disabled, TargetKubernetesVersion: props.TargetKubernetesVersion, LongTermSupport: props.LongTermSupport,
		},
	}}
	resetBaseline := true
	if c.old != nil {
		prev := profileOfRecord(c.old)
		pp := prev.api.Properties
		// fleets.json: updateStrategyId and nodeImageSelection.type are x-ms-mutability read, create.
		if !strings.EqualFold(pp.UpdateStrategyID, props.UpdateStrategyID) {
			return nil, false, armErrorf(http.StatusBadRequest, "PropertyChangeNotAllowed", "properties.updateStrategyId can only be set when the auto-upgrade profile is created.")
		}
		if nodeImageSelectionType(pp) != nodeImageSelectionType(&props) {
			return nil, false, armErrorf(http.StatusBadRequest, "PropertyChangeNotAllowed", "properties.nodeImageSelection.type can only be set when the auto-upgrade profile is created.")
		}
		pr.api.Properties.AutoUpgradeProfileStatus = pp.AutoUpgradeProfileStatus
		pr.baseline = prev.baseline
		resetBaseline = pp.Channel != props.Channel || pp.TargetKubernetesVersion != props.TargetKubernetesVersion ||
			boolValue(pp.LongTermSupport) != boolValue(props.LongTermSupport)
	}
	if resetBaseline {
		pr.baseline, _, _, _ = s.profileTarget(pr, c.now)
	}
	return pr, false, nil
}

func boolValue(b *bool) bool { return b != nil && *b }

// profileOf finds a request's profile with the fleet advanced to now. The caller holds w.mu.
func (s *Server) profileOf(p params) (*record, error) {
	fleet, err := s.parentFleet(p)
	if err != nil {
		return nil, err
	}
	s.advanceRuns(s.world.clock.Now())
	rec, ok := s.world.store.get(fleet.ID + "/autoUpgradeProfiles/" + p["profileName"])
	if !ok {
		return nil, notFound("autoUpgradeProfiles", p["fleetName"], p["profileName"], p["resourceGroupName"])
	}
	return rec, nil
}

// generateUpdateRun creates the run the profile's channel implies now, not
// started, under the trigger's name; a run of that name that exists is
// returned unchanged. The result (via the operation's Location) is its ID.
func (s *Server) generateUpdateRun(w http.ResponseWriter, r *http.Request, p params) error {
	var op *operation
	_, err := s.world.render(func() (any, error) {
		rec, err := s.profileOf(p)
		if err != nil {
			return nil, err
		}
		now := s.world.clock.Now()
		pr := profileOfRecord(rec)
		if pr.api.Properties.Channel == fleetapi.UpgradeChannelSecurityPatch {
			return nil, armErrorf(http.StatusNotImplemented, "NotImplemented",
				"The local Fleet API emulator does not generate update runs for the SecurityPatch channel: preview fleets.json documents it only as \"Applies security patches to the nodes of the target clusters\", which names no version to upgrade to.")
		}
		_, _, tg, err := s.profileTarget(pr, now)
		if err != nil {
			return nil, armErrorf(http.StatusBadRequest, "InvalidParameter", "The auto-upgrade profile's channel %s resolves to no target: %v", pr.api.Properties.Channel, err)
		}
		rr, _, err := s.autoRun(pr, tg, now)
		if err != nil {
			return nil, err
		}
		id := rr.api.ID
		op = s.finishedOperation(rec.ID, func() any { return fleetapi.GenerateResponse{ID: id} })
		return nil, nil
	})
	if err != nil {
		return err
	}
	writeLROAccepted(w, r, op, http.StatusAccepted, nil)
	return nil
}

// triggerProfiles fires every profile whose channel target changed since it
// last looked (see the top of this file). advanceRuns calls it first. The
// caller holds w.mu.
func (s *Server) triggerProfiles(now time.Time) {
	recs := s.world.store.children(s.fleetResourceID(), typeAutoUpgradeProfiles)
	for _, rec := range recs {
		pr := profileOfRecord(rec)
		key, versions, tg, err := s.profileTarget(pr, now)
		if err != nil || key == pr.baseline {
			continue // Choice: a channel that resolves to nothing keeps its baseline.
		}
		pr.baseline = key
		if boolValue(pr.api.Properties.Disabled) {
			continue
		}
		st := &fleetapi.AutoUpgradeProfileStatus{LastTriggeredAt: timePtr(now), LastTriggerUpgradeVersions: versions, LastTriggerStatus: fleetapi.AutoUpgradeTriggerSucceeded}
		rr, created, err := s.autoRun(pr, tg, now)
		if err == nil && (created || rr.run.Status.State == rollout.NotStarted) {
			err = s.startRun(rr, now)
			if err == nil {
				_, _, err = s.world.store.put(rr.api.ID, typeUpdateRuns, rr, precondition{}, now)
			}
		}
		if err != nil {
			st.LastTriggerStatus = fleetapi.AutoUpgradeTriggerFailed
			st.LastTriggerError = errorDetail(err)
		}
		// Status is read-only: recording it keeps the profile's ETag, so a
		// client's If-Match on its last read still holds.
		pr.api.Properties.AutoUpgradeProfileStatus = st
	}
}

func errorDetail(err error) *fleetapi.ErrorDetail {
	var ae *armError
	if errors.As(err, &ae) {
		return &fleetapi.ErrorDetail{Code: ae.code, Message: ae.message}
	}
	return &fleetapi.ErrorDetail{Code: "AutoUpgradeTriggerFailed", Message: err.Error()}
}

// profileTarget resolves a profile's channel now: a key that changes exactly
// when the target does, the versions lastTriggerUpgradeVersions shows, and
// the target. The caller holds w.mu.
func (s *Server) profileTarget(pr *profileRecord, now time.Time) (string, []string, channel.Target, error) {
	props := pr.api.Properties
	regions := s.channelTables(now)
	tables := make([]channel.VersionTable, 0, len(regions))
	for _, t := range regions {
		tables = append(tables, t)
	}
	tg, err := channel.Resolve(channel.Channel(props.Channel), channel.Options{
		TargetKubernetesVersion: props.TargetKubernetesVersion, LongTermSupport: boolValue(props.LongTermSupport),
	}, channel.Union(tables...))
	if err != nil {
		return "", nil, channel.Target{}, err
	}
	if tg.Channel != channel.NodeImage {
		return tg.KubernetesVersion, []string{tg.KubernetesVersion}, tg, nil
	}
	var versions []string
	for family, v := range tg.NodeImages {
		versions = append(versions, rollout.JoinNodeImage(family, v))
	}
	sort.Strings(versions)
	return strings.Join(versions, ","), versions, tg, nil
}

// channelTables are the version tables of the regions of the fleet's
// members at now, by region name, as AKS's ListKubernetesVersions shows them
// plus the regions' node images. The caller holds w.mu.
func (s *Server) channelTables(now time.Time) map[string]channel.VersionTable {
	out := map[string]channel.VersionTable{}
	for _, c := range s.world.clusters {
		if _, ok := out[c.Location]; ok {
			continue
		}
		ga, preview, ok := s.world.kubernetesVersions(c.Location, now)
		if !ok {
			continue
		}
		tab, err := channel.TableFromAKS(kubernetesVersionList(ga, preview).Values)
		if err != nil {
			continue
		}
		images, _ := s.world.nodeImages(c.Location, now)
		for family, vs := range images {
			for _, v := range vs {
				tab.AddNodeImage(rollout.JoinNodeImage(family, v))
			}
		}
		out[c.Location] = tab
	}
	return out
}

// autoRunName is the deterministic name of the run a profile makes for a
// target: "<profile>-<version with dashes>" for the Kubernetes channels
// ("nightly-1-33-2"), "<profile>-nodeimage-<first 10 hex digits of the
// SHA-256 of the sorted image versions>" for NodeImage. The profile's name is
// cut so that the whole fits the 50 characters of a run name.
func autoRunName(profile string, tg channel.Target) string {
	suffix := strings.ReplaceAll(tg.KubernetesVersion, ".", "-")
	if tg.Channel == channel.NodeImage {
		var vs []string
		for family, v := range tg.NodeImages {
			vs = append(vs, rollout.JoinNodeImage(family, v))
		}
		sort.Strings(vs)
		sum := sha256.Sum256([]byte(strings.Join(vs, ",")))
		suffix = "nodeimage-" + hex.EncodeToString(sum[:])[:10]
	}
	if maxN := 50 - len(suffix) - 1; len(profile) > maxN {
		profile = strings.TrimRight(profile[:maxN], "-")
	}
	return profile + "-" + suffix
}

// autoRun returns the profile's run for tg: the existing run of its name, or
// a new NotStarted one (stored), with the members the channel leaves alone
// skipped. The caller holds w.mu.
func (s *Server) autoRun(pr *profileRecord, tg channel.Target, now time.Time) (*runRecord, bool, error) {
	fleetID := s.fleetResourceID()
	name := autoRunName(pr.api.Name, tg)
	id := fleetID + "/updateRuns/" + name
	if rec, ok := s.world.store.get(id); ok {
		return runOfRecord(rec), false, nil
	}
	props := pr.api.Properties
	sel := fleetapi.NodeImageSelectionLatest
	if props.NodeImageSelection != nil {
		sel = fleetapi.NodeImageSelectionType(props.NodeImageSelection.Type)
	}
	update := &fleetapi.ManagedClusterUpdate{
		Upgrade:            fleetapi.ManagedClusterUpgradeSpec{Type: fleetapi.UpgradeTypeFull, KubernetesVersion: tg.KubernetesVersion},
		NodeImageSelection: &fleetapi.NodeImageSelection{Type: sel},
	}
	if tg.Channel == channel.NodeImage {
		update.Upgrade = fleetapi.ManagedClusterUpgradeSpec{Type: fleetapi.UpgradeTypeNodeImageOnly}
	}
	rr, err := s.newRunRecord(fleetID, name, fleetapi.UpdateRunProperties{
		UpdateStrategyID: props.UpdateStrategyID, ManagedClusterUpdate: update, AutoUpgradeProfileID: pr.api.ID,
	}, false, now)
	if err != nil {
		return nil, false, err
	}
	if tg.Channel != channel.NodeImage {
		facts := s.facts()
		var skips []rollout.SkipTarget
		reasons := map[string]string{}
		for _, a := range channel.MemberActions(tg, facts.Members, s.channelTables(now)) {
			if a.Action == channel.Skip && leftAlone(a, tg) && memberStatus(rr.run, a.Name) != nil {
				skips = append(skips, rollout.SkipTarget{Type: rollout.SkipMember, Name: a.Name})
				reasons[a.Name] = a.Reason
			}
		}
		if len(skips) > 0 {
			evs, err := rr.run.Skip(skips, facts, now)
			s.applyEvents(rr, evs)
			if err != nil {
				return nil, false, err
			}
			for n, why := range reasons {
				memberStatus(rr.run, n).Message = "left alone by the auto-upgrade channel: " + why
			}
		}
	}
	if _, _, err := s.world.store.put(id, typeUpdateRuns, rr, precondition{}, now); err != nil {
		return nil, false, err
	}
	return rr, true, nil
}

// leftAlone: the channel does not move the member at all (a downgrade, more
// than one minor version behind, outside the support window), as opposed to
// a member a run of the target still reaches (Pending until the target is
// in its region, or failing as a non-LTS cluster of an LTS profile).
func leftAlone(a channel.MemberAction, tg channel.Target) bool {
	cur, err1 := channel.ParseVersion(a.CurrentKubernetesVersion)
	tgt, err2 := channel.ParseVersion(tg.KubernetesVersion)
	if err1 != nil || err2 != nil {
		return true
	}
	if cur.Compare(tgt) > 0 || (tgt.Major*1000+tgt.Minor)-(cur.Major*1000+cur.Minor) > 1 {
		return true
	}
	return strings.Contains(a.Reason, "outside the AKS support window")
}
