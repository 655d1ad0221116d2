package emulator

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// The runner executes update runs on the simulated clock with the rollout
// engine's state machine, the code the provider's preview runs: it advances
// every run to each instant something is due (NextWake), one step at a time
// and in time order across runs, and applies what each step did to the world
// before the next step reads it, as rollout.Plan does to its copy of the
// fleet. Requests that read or change runs advance them first, so what they
// see never depends on when the background loop last woke.

// runnerIdle bounds the loop's sleep: it also notices a clock driven by hand.
const runnerIdle = 250 * time.Millisecond

type runner struct {
	s *Server
	// regions are the fleet file's regions as the rules see them (releases included).
	regions map[string]rollout.Region
	// upgrades is how each member's next upgrade behaves, by lower-cased
	// name: the fleet file's, changed by SetMemberUpgrade. Guarded by world.mu.
	upgrades map[string]rollout.UpgradeBehavior

	kickc     chan struct{}
	quit      chan struct{}
	done      chan struct{}
	startOnce sync.Once
	stopOnce  sync.Once
	started   bool
}

func newRunner(s *Server) *runner {
	rn := &runner{
		s: s, regions: map[string]rollout.Region{}, upgrades: map[string]rollout.UpgradeBehavior{},
		kickc: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{}),
	}
	for name, r := range s.cfg.File.Regions {
		reg := rollout.Region{
			KubernetesVersions: append(append([]string{}, r.KubernetesVersions...), r.PreviewVersions...),
			NodeImages:         r.NodeImages,
		}
		for _, rel := range r.Releases {
			reg.Releases = append(reg.Releases, rollout.Release{At: rel.At, KubernetesVersion: rel.KubernetesVersion, NodeImageVersion: rel.NodeImage})
		}
		rn.regions[name] = reg
	}
	for _, m := range s.cfg.File.Members {
		rn.upgrades[strings.ToLower(m.Name)] = rollout.UpgradeBehavior{Duration: m.Upgrade.Duration.Duration, Fail: m.Upgrade.Fail, Message: m.Upgrade.Message}
	}
	return rn
}

func (rn *runner) start() {
	rn.startOnce.Do(func() {
		rn.started = true
		go rn.loop()
	})
}

func (rn *runner) stop() {
	rn.stopOnce.Do(func() {
		close(rn.quit)
		if rn.started {
			<-rn.done
		}
	})
}

// kick wakes the loop after a run changed (started, approved, skipped).
func (rn *runner) kick() {
	select {
	case rn.kickc <- struct{}{}:
	default:
	}
}

func (rn *runner) loop() {
	defer close(rn.done)
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-rn.quit:
			return
		case <-rn.kickc:
		case <-timer.C:
		}
		timer.Reset(rn.tick())
	}
}

// tick advances every run to now and returns the real time until the next
// thing is due.
func (rn *runner) tick() time.Duration {
	w := rn.s.world
	w.mu.Lock()
	defer w.mu.Unlock()
	rn.s.advanceRuns(w.clock.Now())
	next, ok := rn.s.nextWake()
	if !ok {
		return runnerIdle
	}
	return min(max(w.clock.Until(next), time.Millisecond), runnerIdle)
}

// advanceRuns brings every run to now: the run with the earliest due
// instant takes its step, the world takes its effects, and so on. Runs being
// deleted go once their last upgrade has ended. The caller holds w.mu.
func (s *Server) advanceRuns(now time.Time) {
	s.triggerProfiles(now)
	for {
		var next *runRecord
		var at time.Time
		for _, rr := range s.runs() {
			if t, ok := rr.run.NextWake(); ok && !t.After(now) && (next == nil || t.Before(at)) {
				next, at = rr, t
			}
		}
		if next == nil {
			break
		}
		s.applyEvents(next, next.run.Advance(s.facts(), at))
	}
	for _, rr := range s.runs() {
		if rr.deleting && !active(rr.run.Status.State) {
			s.deleteRun(rr)
		}
	}
}

// nextWake is the earliest instant at which some run has something to do.
// The caller holds w.mu.
func (s *Server) nextWake() (time.Time, bool) {
	var best time.Time
	found := false
	for _, rr := range s.runs() {
		if t, ok := rr.run.NextWake(); ok && (!found || t.Before(best)) {
			best, found = t, true
		}
	}
	return best, found
}

func active(s rollout.State) bool {
	return s == rollout.Running || s == rollout.Pending || s == rollout.Stopping
}

// facts is the fleet as the rules see it now: the members (their update
// group and labels from the Fleet API member, the rest from their managed clusters)
// and the regions' offerings. The caller holds w.mu.
func (s *Server) facts() rollout.Fleet {
	f := rollout.Fleet{Regions: s.runner.regions}
	for _, rec := range s.world.store.children(s.fleetResourceID(), typeFleetMembers) {
		m := memberView(rec)
		c, ok := s.world.memberCluster(m.Name)
		if !ok {
			continue
		}
		rm := rollout.Member{
			Name: m.Name, Location: c.Location, KubernetesVersion: c.CurrentKubernetesVersion,
			Upgrade: s.runner.upgrades[strings.ToLower(c.Name)],
		}
		if m.Properties != nil {
			// A memberSelector selects by the Fleet member's labels (preview fleets.json
			// MemberSelector.byLabel: "Kubernetes-style label selector for selecting Fleet members").
			rm.Group, rm.Labels = m.Properties.Group, m.Properties.Labels
		}
		start := s.cfg.File.Clock.Start
		if c.MaintenanceWindow != nil {
			rm.AutoUpgradeWindow = maintenanceWindow(c.MaintenanceWindow, start)
		}
		if c.NodeOSMaintenanceWindow != nil {
			rm.NodeOSUpgradeWindow = maintenanceWindow(c.NodeOSMaintenanceWindow, start)
		}
		rm.NodePools = c.pools()
		f.Members = append(f.Members, rm)
	}
	return f
}

func (s *Server) fleetResourceID() string {
	f := s.cfg.File.Fleet
	return fleetID(f.SubscriptionID, f.ResourceGroup, f.Name)
}

// pools are the cluster's node pools as the rules see them.
func (c *cluster) pools() []rollout.NodePool {
	out := make([]rollout.NodePool, len(c.NodePools))
	for i, p := range c.NodePools {
		sku, _ := fleetfile.SplitNodeImage(p.NodeImage)
		out[i] = rollout.NodePool{Name: p.Name, OSSKU: sku, NodeImageVersion: p.NodeImage, KubernetesVersion: p.CurrentOrchestratorVersion}
	}
	return out
}

// applyEvents makes the world follow a run's step: an upgrade that starts
// gets an operation and puts its cluster in Upgrading, one that completes
// changes the cluster's versions (rollout.ApplyTarget, as the preview does),
// one that fails leaves it Failed; a gate the run reaches becomes a
// fleets/gates resource. The caller holds w.mu.
func (s *Server) applyEvents(rr *runRecord, evs []rollout.Event) {
	upgrade := rr.run.Update.Upgrade
	for _, e := range evs {
		c, _ := s.world.memberCluster(e.Member)
		switch {
		case e.Kind == rollout.EventMemberStarted:
			if ms := memberStatus(rr.run, e.Member); ms != nil {
				ms.OperationID = newUUID()
			}
			if c != nil && e.Target != nil {
				c.startUpgrade(upgrade, *e.Target)
			}
		case e.Kind == rollout.EventMemberFinished && c != nil:
			if e.To == rollout.Completed && e.Target != nil {
				c.completeUpgrade(upgrade, *e.Target)
			} else {
				c.failUpgrade()
			}
		case e.Kind == rollout.EventGateState:
			s.gateChanged(rr, e)
		}
	}
}

func (c *cluster) startUpgrade(t rollout.UpgradeType, tg rollout.Target) {
	c.ProvisioningState = "Upgrading"
	if t != rollout.NodeImageOnly && tg.KubernetesVersion != "" {
		c.KubernetesVersion = tg.KubernetesVersion
		for _, p := range c.NodePools {
			if t == rollout.Full {
				p.OrchestratorVersion = tg.KubernetesVersion
			}
		}
	}
	c.ETag = newETag()
}

func (c *cluster) completeUpgrade(t rollout.UpgradeType, tg rollout.Target) {
	m := rollout.Member{KubernetesVersion: c.CurrentKubernetesVersion, NodePools: c.pools()}
	rollout.ApplyTarget(&m, t, tg)
	c.KubernetesVersion, c.CurrentKubernetesVersion = m.KubernetesVersion, m.KubernetesVersion
	for i, p := range m.NodePools {
		np := c.NodePools[i]
		np.NodeImage = p.NodeImageVersion
		np.OrchestratorVersion, np.CurrentOrchestratorVersion = p.KubernetesVersion, p.KubernetesVersion
		np.ETag = newETag()
	}
	c.ProvisioningState = "Succeeded"
	c.ETag = newETag()
}

// failUpgrade: the cluster stays at its versions, provisioning Failed as AKS reports it.
func (c *cluster) failUpgrade() {
	c.KubernetesVersion = c.CurrentKubernetesVersion
	for _, p := range c.NodePools {
		p.OrchestratorVersion = p.CurrentOrchestratorVersion
	}
	c.ProvisioningState = "Failed"
	c.ETag = newETag()
}

func memberStatus(r *rollout.Run, name string) *rollout.MemberStatus {
	for i := range r.Status.Stages {
		for j := range r.Status.Stages[i].Groups {
			g := &r.Status.Stages[i].Groups[j]
			for k := range g.Members {
				if g.Members[k].Name == name {
					return &g.Members[k]
				}
			}
		}
	}
	return nil
}

// MemberUpgrade is how the member's next upgrade behaves: the fleet file's
// upgrade, or what SetMemberUpgrade made of it.
func (s *Server) MemberUpgrade(name string) (fleetfile.Upgrade, bool) {
	s.world.mu.Lock()
	defer s.world.mu.Unlock()
	u, ok := s.runner.upgrades[strings.ToLower(name)]
	return fleetfile.Upgrade{Duration: fleetfile.Duration{Duration: u.Duration}, Fail: u.Fail, Message: u.Message}, ok
}

// SetMemberUpgrade changes how the member's upgrades behave from now on
// (e.g. clears a planned failure so that a run started again completes);
// an upgrade under way ends as it was going to.
func (s *Server) SetMemberUpgrade(name string, u fleetfile.Upgrade) bool {
	s.world.mu.Lock()
	defer s.world.mu.Unlock()
	key := strings.ToLower(name)
	if _, ok := s.runner.upgrades[key]; !ok {
		return false
	}
	s.runner.upgrades[key] = rollout.UpgradeBehavior{Duration: u.Duration.Duration, Fail: u.Fail, Message: u.Message}
	return true
}

// memberAdmin is what /_emulator/members/{name} shows of a member.
type memberAdmin struct {
	Name              string            `json:"name"`
	KubernetesVersion string            `json:"kubernetesVersion"`
	NodeImages        map[string]string `json:"nodeImages"`
	Upgrade           fleetfile.Upgrade `json:"upgrade"`
}

// serveMembersAdmin serves /_emulator/members/{name}: GET shows the
// member's cluster versions and upgrade behavior; PATCH
// {"upgrade":{"duration":"30m","fail":false,"message":""}} changes the
// behavior (fields left out stay as they are).
func (s *Server) serveMembersAdmin(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/_emulator/members/"), "/")
	u, ok := s.MemberUpgrade(name)
	if !ok {
		writeARMError(w, armErrorf(http.StatusNotFound, "NotFound", "no member %q in the fleet file", name))
		return
	}
	switch r.Method {
	case http.MethodGet:
	case http.MethodPatch:
		var patch struct {
			Upgrade *struct {
				Duration *fleetfile.Duration `json:"duration"`
				Fail     *bool               `json:"fail"`
				Message  *string             `json:"message"`
			} `json:"upgrade"`
			// What changes outside the Fleet API (az aks upgrade, az aks maintenanceconfiguration):
			// the managed cluster's control plane and pools run KubernetesVersion, its auto-upgrade
			// window becomes MaintenanceWindow.
			KubernetesVersion *string                      `json:"kubernetesVersion"`
			MaintenanceWindow *fleetfile.MaintenanceWindow `json:"maintenanceWindow"`
		}
		dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&patch); err != nil {
			writeARMError(w, armErrorf(http.StatusBadRequest, "InvalidRequestContent", "member patch: %v", err))
			return
		}
		if p := patch.Upgrade; p != nil {
			if p.Duration != nil {
				u.Duration = *p.Duration
			}
			if p.Fail != nil {
				u.Fail = *p.Fail
			}
			if p.Message != nil {
				u.Message = *p.Message
			}
		}
		s.SetMemberUpgrade(name, u)
		if patch.KubernetesVersion != nil || patch.MaintenanceWindow != nil {
			s.world.mu.Lock()
			c := s.world.clusters[strings.ToLower(name)]
			if v := patch.KubernetesVersion; v != nil {
				c.KubernetesVersion, c.CurrentKubernetesVersion = *v, *v
				for _, p := range c.NodePools {
					p.OrchestratorVersion, p.CurrentOrchestratorVersion = *v, *v
				}
			}
			if patch.MaintenanceWindow != nil {
				c.MaintenanceWindow = patch.MaintenanceWindow
			}
			s.world.mu.Unlock()
		}
	default:
		w.Header().Set("Allow", "GET, PATCH")
		writeARMError(w, armErrorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "/_emulator/members/{name} supports GET and PATCH"))
		return
	}
	s.world.mu.Lock()
	s.advanceRuns(s.world.clock.Now())
	c := s.world.clusters[strings.ToLower(name)]
	out := memberAdmin{Name: c.Name, KubernetesVersion: c.CurrentKubernetesVersion, NodeImages: map[string]string{}, Upgrade: u}
	for _, p := range c.NodePools {
		out.NodeImages[p.Name] = p.NodeImage
	}
	s.world.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}
