// Package fleetfile reads the YAML file that describes a local fleet
// (SPEC §6): members, regions, versions, windows, planned failures.
// Unknown keys are an error, so a typo never silently changes a fleet.
//
// Top-level keys: fleet, clock, regions, members, generate (many members
// from a seed: count, namePrefix, seed, regions, groups, labels,
// properties, nodeCount, taint, unhealthyFraction, maintenanceWindows,
// resources; see Generate), hub (agent: false runs no hub agent) and
// fleetAPI (retryAfterSeconds of the emulator's long-running operations).
package fleetfile

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/kubeversion"
)

// File is one local fleet.
type File struct {
	Fleet   Fleet             `json:"fleet"`
	Clock   Clock             `json:"clock"`
	Regions map[string]Region `json:"regions"`
	Members []Member          `json:"members"`
	// Generate appends generated members to Members (generate.go).
	Generate *Generate `json:"generate,omitempty"`
	Hub      Hub       `json:"hub,omitempty"`
	// FleetAPI tunes the Fleet API emulator.
	FleetAPI FleetAPI `json:"fleetAPI,omitempty"`
}

// FleetAPI tunes the Fleet API emulator.
type FleetAPI struct {
	// RetryAfterSeconds is the Retry-After of long-running operations'
	// answers (default 1, as the Fleet RP sends; 0 sends none, so tests do
	// not wait a second for every write, which the emulator finishes at once).
	RetryAfterSeconds *int `json:"retryAfterSeconds,omitempty"`
	// ReadLimits, when present (`readLimits: {}` takes ARM's sizes), makes
	// the emulator meter reads as Azure Resource Manager does; absent, reads
	// are not metered.
	ReadLimits *ReadLimits `json:"readLimits,omitempty"`
}

// ReadLimits are ARM's token buckets for reads ("Understand how Azure
// Resource Manager throttles requests", learn.microsoft.com/azure/
// azure-resource-manager/management/request-limits-and-throttling): one per
// subscription × principal × region and one per subscription. Zero fields
// take ARM's values.
type ReadLimits struct {
	// Bucket and RefillPerSecond size the bucket of each principal (ARM: 250, 25/s).
	Bucket          int `json:"bucket,omitempty"`
	RefillPerSecond int `json:"refillPerSecond,omitempty"`
	// SubscriptionBucket and SubscriptionRefillPerSecond size the one
	// every principal of the subscription shares (ARM: 3,750, 375/s).
	SubscriptionBucket          int `json:"subscriptionBucket,omitempty"`
	SubscriptionRefillPerSecond int `json:"subscriptionRefillPerSecond,omitempty"`
}

// ARM's read limits (request-limits-and-throttling: "Subscription reads per
// hour … 250 bucket size, 25 refill rate per second", "3,750 … 375" for the
// subscription across principals).
const (
	ARMReadBucket             = 250
	ARMReadRefill             = 25
	ARMSubscriptionReadBucket = 3750
	ARMSubscriptionReadRefill = 375
)

// WithDefaults fills zero fields with ARM's values.
func (l ReadLimits) WithDefaults() ReadLimits {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	def(&l.Bucket, ARMReadBucket)
	def(&l.RefillPerSecond, ARMReadRefill)
	def(&l.SubscriptionBucket, ARMSubscriptionReadBucket)
	def(&l.SubscriptionRefillPerSecond, ARMSubscriptionReadRefill)
	return l
}

// Hub says how the hub runs.
type Hub struct {
	// Agent false runs no hub agent: the simulated member agents then write
	// the MemberClusters' status themselves, so a hub of 10,000 members starts
	// in minutes. Nothing schedules placements on such a hub.
	Agent *bool `json:"agent,omitempty"`
}

// HubAgent reports whether KubeFleet's hub agent runs (the default).
func (f *File) HubAgent() bool { return f.Hub.Agent == nil || *f.Hub.Agent }

type Fleet struct {
	Name           string `json:"name"`
	SubscriptionID string `json:"subscriptionId"`
	ResourceGroup  string `json:"resourceGroup"`
	Location       string `json:"location"`
}

// Clock is the emulator's simulated clock: it starts at Start and runs
// Speed simulated seconds per real second.
type Clock struct {
	Start time.Time `json:"start"`
	Speed float64   `json:"speed"`
}

type Region struct {
	KubernetesVersions []string            `json:"kubernetesVersions"`
	PreviewVersions    []string            `json:"previewVersions,omitempty"`
	NodeImages         map[string][]string `json:"nodeImages,omitempty"`
	Releases           []Release           `json:"releases,omitempty"`
}

// Release makes a Kubernetes version or node image available in a region
// at a simulated time.
type Release struct {
	At                time.Time `json:"at"`
	KubernetesVersion string    `json:"kubernetesVersion,omitempty"`
	Preview           bool      `json:"preview,omitempty"`
	// NodeImage is "<os sku>-<version>", as in a node pool's nodeImage.
	NodeImage string `json:"nodeImage,omitempty"`
}

type Member struct {
	Name              string             `json:"name"`
	Group             string             `json:"group,omitempty"`
	Location          string             `json:"location"`
	Labels            map[string]string  `json:"labels,omitempty"`
	Taints            []Taint            `json:"taints,omitempty"`
	Healthy           *bool              `json:"healthy,omitempty"`
	KubernetesVersion string             `json:"kubernetesVersion"`
	NodePools         []NodePool         `json:"nodePools,omitempty"`
	MaintenanceWindow *MaintenanceWindow `json:"maintenanceWindow,omitempty"`
	// NodeOSMaintenanceWindow is the aksManagedNodeOSUpgradeSchedule;
	// NodeImageOnly runs honour it instead of MaintenanceWindow.
	NodeOSMaintenanceWindow *MaintenanceWindow `json:"nodeOSMaintenanceWindow,omitempty"`
	Properties              map[string]string  `json:"properties,omitempty"`
	Resources               *Resources         `json:"resources,omitempty"`
	Upgrade                 Upgrade            `json:"upgrade,omitempty"`
	Karpenter               *Karpenter         `json:"karpenter,omitempty"`
	// Joined false declares a managed cluster that is not (yet) a fleet
	// member: the Fleet API lists no member for it and the hub has no
	// MemberCluster until a PUT of fleets/members (e.g. fleet_member) joins
	// it; its group and labels are then the member's. Default true.
	Joined *bool `json:"joined,omitempty"`
}

// IsJoined reports whether the cluster is a fleet member from the start.
func (m Member) IsJoined() bool { return m.Joined == nil || *m.Joined }

// IsHealthy reports whether the simulated member agent heartbeats.
func (m Member) IsHealthy() bool { return m.Healthy == nil || *m.Healthy }

type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value,omitempty"`
	Effect string `json:"effect"`
}

type NodePool struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
	// NodeImage is "<os sku>-<version>", e.g. AKSUbuntu-2204gen2containerd-202510.01.0.
	NodeImage string `json:"nodeImage"`
}

// OSSKU and ImageVersion split NodeImage at its last dash.
func (p NodePool) OSSKU() string {
	sku, _ := SplitNodeImage(p.NodeImage)
	return sku
}

func (p NodePool) ImageVersion() string {
	_, v := SplitNodeImage(p.NodeImage)
	return v
}

// SplitNodeImage splits "<os sku>-<version>" at its last dash.
func SplitNodeImage(image string) (sku, version string) {
	i := strings.LastIndex(image, "-")
	if i < 0 {
		return image, ""
	}
	return image[:i], image[i+1:]
}

// MaintenanceWindow is an AKS planned-maintenance schedule, weekly or daily.
type MaintenanceWindow struct {
	Weekly        string `json:"weekly,omitempty"`        // day of week, e.g. Saturday
	IntervalWeeks int    `json:"intervalWeeks,omitempty"` // default 1
	Daily         bool   `json:"daily,omitempty"`
	StartTime     string `json:"startTime"` // HH:mm
	DurationHours int    `json:"durationHours"`
	UTCOffset     string `json:"utcOffset,omitempty"` // ±HH:mm, default +00:00
	// StartDate anchors intervalWeeks (YYYY-MM-DD); default: the clock's start date.
	StartDate string `json:"startDate,omitempty"`
}

type Resources struct {
	Capacity    map[string]string `json:"capacity,omitempty"`
	Allocatable map[string]string `json:"allocatable,omitempty"`
	Available   map[string]string `json:"available,omitempty"`
}

// Upgrade says how long the member's upgrade takes in simulated time and
// whether it fails.
type Upgrade struct {
	Duration Duration `json:"duration,omitempty"`
	Fail     bool     `json:"fail,omitempty"`
	Message  string   `json:"message,omitempty"`
}

// Karpenter is present on members that get their own kube-apiserver.
type Karpenter struct {
	NodePools []KarpenterNodePool `json:"nodePools"`
	// PodDisruptionBudgets are seeded on the member's API server (policy/v1), with their status.
	PodDisruptionBudgets []PodDisruptionBudget `json:"podDisruptionBudgets,omitempty"`
}

// PodDisruptionBudget is a policy/v1 PodDisruptionBudget to seed. The local fleet runs no
// kube-controller-manager, whose disruption controller would write status.disruptionsAllowed, so the
// file states it (default 0: the PDB allows no eviction now).
type PodDisruptionBudget struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// MatchLabels selects the pods (spec.selector.matchLabels); empty selects every pod of the namespace.
	MatchLabels map[string]string `json:"matchLabels,omitempty"`
	// MinAvailable and MaxUnavailable: exactly one, a count or a percentage ("50%").
	MinAvailable   *intstr.IntOrString `json:"minAvailable,omitempty"`
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	// UnhealthyPodEvictionPolicy is IfHealthyBudget or AlwaysAllow (unset: the API server's default).
	UnhealthyPodEvictionPolicy string `json:"unhealthyPodEvictionPolicy,omitempty"`
	DisruptionsAllowed         int32  `json:"disruptionsAllowed,omitempty"`
}

// pdbErrors checks the PDBs as the API server would (names, one of minAvailable and maxUnavailable,
// non-negative counts, percentages 0-100%, the policy enum), with each finding's path.
func (k Karpenter) pdbErrors(at string) []string {
	var errs []string
	seen := map[string]bool{}
	for j, p := range k.PodDisruptionBudgets {
		pat := fmt.Sprintf("%s.karpenter.podDisruptionBudgets[%d]", at, j)
		if !namePattern.MatchString(p.Namespace) || !podNamePattern.MatchString(p.Name) {
			errs = append(errs, fmt.Sprintf("%s: namespace %q and name %q must be Kubernetes names", pat, p.Namespace, p.Name))
		}
		if key := p.Namespace + "/" + p.Name; seen[key] {
			errs = append(errs, fmt.Sprintf("%s: PodDisruptionBudget %s listed twice", pat, key))
		} else {
			seen[key] = true
		}
		if (p.MinAvailable == nil) == (p.MaxUnavailable == nil) {
			errs = append(errs, fmt.Sprintf("%s: set exactly one of minAvailable and maxUnavailable", pat))
		}
		for field, v := range map[string]*intstr.IntOrString{"minAvailable": p.MinAvailable, "maxUnavailable": p.MaxUnavailable} {
			if v != nil && !intOrPercent(*v) {
				errs = append(errs, fmt.Sprintf("%s.%s %q: a non-negative count or a percentage from 0%% to 100%%", pat, field, v.String()))
			}
		}
		if pol := p.UnhealthyPodEvictionPolicy; pol != "" && pol != "IfHealthyBudget" && pol != "AlwaysAllow" {
			errs = append(errs, fmt.Sprintf("%s.unhealthyPodEvictionPolicy %q: IfHealthyBudget or AlwaysAllow", pat, pol))
		}
		if p.DisruptionsAllowed < 0 {
			errs = append(errs, fmt.Sprintf("%s.disruptionsAllowed %d: must be non-negative", pat, p.DisruptionsAllowed))
		}
	}
	return errs
}

// intOrPercent: a count >= 0 or "N%" with 0 <= N <= 100, as the API server's PDB validation wants.
func intOrPercent(v intstr.IntOrString) bool {
	if v.Type == intstr.Int {
		return v.IntVal >= 0
	}
	n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	return strings.HasSuffix(v.StrVal, "%") && err == nil && n >= 0 && n <= 100
}

type KarpenterNodePool struct {
	Name     string    `json:"name"`
	Nodes    int       `json:"nodes"`
	NotReady int       `json:"notReady,omitempty"`
	Deleting int       `json:"deleting,omitempty"`
	AgeHours []float64 `json:"ageHours,omitempty"`
	// ExpireAfter is the NodePool template's expireAfter ("720h" or "Never").
	ExpireAfter string `json:"expireAfter,omitempty"`
	// TemplateAnnotations are the NodePool template's annotations (spec.template.metadata.annotations);
	// Karpenter copies them to the NodeClaims and Nodes it launches, so the seed does too.
	TemplateAnnotations map[string]string `json:"templateAnnotations,omitempty"`
	// NodeAnnotations are extra annotations by node name (<pool>-<index>).
	NodeAnnotations map[string]map[string]string `json:"nodeAnnotations,omitempty"`
	// Pods are pods bound to the pool's nodes.
	Pods []KarpenterPod `json:"pods,omitempty"`
	// Drifted names nodes whose NodeClaim carries a stale karpenter.sh/nodepool-hash.
	Drifted []string `json:"drifted,omitempty"`
}

// KarpenterPod is a pod bound to a node of a Karpenter NodePool.
type KarpenterPod struct {
	Node        string            `json:"node"`
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	// NotReady gives the pod a Ready condition False (for PDBs' unhealthyPodEvictionPolicy).
	NotReady bool `json:"notReady,omitempty"`
	// DaemonSet makes the pod owned by a DaemonSet (Karpenter does not reschedule those).
	DaemonSet bool `json:"daemonSet,omitempty"`
}

// NodeName is the name of the pool's i-th node (and NodeClaim).
func (p KarpenterNodePool) NodeName(i int) string { return fmt.Sprintf("%s-%d", p.Name, i) }

// nodeErrors checks that the per-node keys name nodes of the pool and that pods are unique
// Kubernetes names.
func (p KarpenterNodePool) nodeErrors() []string {
	var errs []string
	nodes := map[string]bool{}
	for i := range p.Nodes {
		nodes[p.NodeName(i)] = true
	}
	known := func(key, node string) {
		if !nodes[node] {
			errs = append(errs, fmt.Sprintf("%s: node %q is not one of the pool's nodes (%s-0 to %s-%d)", key, node, p.Name, p.Name, p.Nodes-1))
		}
	}
	for _, node := range slices.Sorted(maps.Keys(p.NodeAnnotations)) {
		known("nodeAnnotations", node)
	}
	for j, node := range p.Drifted {
		known(fmt.Sprintf("drifted[%d]", j), node)
	}
	pods := map[string]bool{}
	for j, pod := range p.Pods {
		at := fmt.Sprintf("pods[%d]", j)
		known(at+".node", pod.Node)
		if !namePattern.MatchString(pod.Namespace) || !podNamePattern.MatchString(pod.Name) {
			errs = append(errs, fmt.Sprintf("%s: namespace %q and name %q must be Kubernetes names", at, pod.Namespace, pod.Name))
		}
		if key := pod.Namespace + "/" + pod.Name; pods[key] {
			errs = append(errs, fmt.Sprintf("%s: pod %s listed twice", at, key))
		} else {
			pods[key] = true
		}
	}
	return errs
}

// isKubernetesVersion accepts "major.minor.patch" as the Fleet API names versions (no "v").
func isKubernetesVersion(s string) bool {
	_, err := kubeversion.Parse(s)
	return err == nil && !strings.HasPrefix(s, "v")
}

// podNamePattern is a DNS subdomain, what pod names are.
var podNamePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)

// Duration reads "20m"-style strings.
type Duration struct{ time.Duration }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("duration must be a string like \"20m\": %w", err)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	d.Duration = v
	return nil
}

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// DefaultUpgradeDuration is used for members whose file sets none.
const DefaultUpgradeDuration = 20 * time.Minute

// Load reads and validates a fleet file.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// Parse decodes and validates a fleet file, filling defaults.
func Parse(b []byte) (*File, error) {
	var f File
	if err := yaml.UnmarshalStrict(b, &f); err != nil {
		return nil, err
	}
	if f.Generate != nil {
		if errs := f.Generate.validate(f.Regions); len(errs) > 0 {
			return nil, fmt.Errorf("invalid fleet file:\n  %s", strings.Join(errs, "\n  "))
		}
		f.Members = append(f.Members, f.Generate.members(f.Regions)...)
	}
	if err := f.validate(); err != nil {
		return nil, err
	}
	f.defaults()
	return &f, nil
}

var (
	namePattern   = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	hhmm          = regexp.MustCompile(`^([01]\d|2[0-3]):[0-5]\d$`)
	offsetPattern = regexp.MustCompile(`^[+-](0\d|1[0-4]):[0-5]\d$`)
	weekdays      = map[string]bool{"Sunday": true, "Monday": true, "Tuesday": true, "Wednesday": true, "Thursday": true, "Friday": true, "Saturday": true}
)

func (f *File) validate() error {
	var errs []string
	add := func(format string, a ...any) { errs = append(errs, fmt.Sprintf(format, a...)) }
	if !namePattern.MatchString(f.Fleet.Name) {
		add("fleet.name %q: must match %s", f.Fleet.Name, namePattern)
	}
	if f.Fleet.SubscriptionID == "" || f.Fleet.ResourceGroup == "" || f.Fleet.Location == "" {
		add("fleet: subscriptionId, resourceGroup and location are required")
	}
	if f.Clock.Speed < 0 {
		add("clock.speed: must not be negative")
	}
	if v := f.FleetAPI.RetryAfterSeconds; v != nil && (*v < 0 || *v > 3600) {
		add("fleetAPI.retryAfterSeconds: must be between 0 and 3600")
	}
	if l := f.FleetAPI.ReadLimits; l != nil {
		for _, v := range []struct {
			name string
			v    int
		}{{"bucket", l.Bucket}, {"refillPerSecond", l.RefillPerSecond}, {"subscriptionBucket", l.SubscriptionBucket}, {"subscriptionRefillPerSecond", l.SubscriptionRefillPerSecond}} {
			if v.v < 0 || v.v > 1000000 {
				add("fleetAPI.readLimits.%s: must be between 1 and 1000000 (0 or absent: ARM's value)", v.name)
			}
		}
	}
	regionNames := make([]string, 0, len(f.Regions))
	for name := range f.Regions {
		regionNames = append(regionNames, name)
	}
	sort.Strings(regionNames)
	for _, name := range regionNames {
		r := f.Regions[name]
		for _, v := range append(append([]string{}, r.KubernetesVersions...), r.PreviewVersions...) {
			if !isKubernetesVersion(v) {
				add("regions.%s: version %q is not MAJOR.MINOR.PATCH", name, v)
			}
		}
		for i, rel := range r.Releases {
			if rel.At.IsZero() {
				add("regions.%s.releases[%d].at: required", name, i)
			}
			if (rel.KubernetesVersion == "") == (rel.NodeImage == "") {
				add("regions.%s.releases[%d]: set exactly one of kubernetesVersion and nodeImage", name, i)
			}
			if rel.KubernetesVersion != "" && !isKubernetesVersion(rel.KubernetesVersion) {
				add("regions.%s.releases[%d].kubernetesVersion %q is not MAJOR.MINOR.PATCH", name, i, rel.KubernetesVersion)
			}
			if rel.NodeImage != "" {
				if _, v := SplitNodeImage(rel.NodeImage); v == "" {
					add("regions.%s.releases[%d].nodeImage %q: want <os sku>-<version>", name, i, rel.NodeImage)
				}
			}
		}
	}
	seen := map[string]bool{}
	for i, m := range f.Members {
		at := fmt.Sprintf("members[%d]", i)
		if !namePattern.MatchString(m.Name) {
			add("%s.name %q: must match %s", at, m.Name, namePattern)
		}
		if seen[m.Name] {
			add("%s.name %q: duplicate", at, m.Name)
		}
		seen[m.Name] = true
		if _, ok := f.Regions[m.Location]; !ok {
			add("%s.location %q: not among regions", at, m.Location)
		}
		if !isKubernetesVersion(m.KubernetesVersion) {
			add("%s.kubernetesVersion %q: not MAJOR.MINOR.PATCH", at, m.KubernetesVersion)
		}
		for j, t := range m.Taints {
			if t.Key == "" || t.Effect != "NoSchedule" {
				add("%s.taints[%d]: key required and effect must be NoSchedule (the only effect KubeFleet supports)", at, j)
			}
		}
		pools := map[string]bool{}
		for j, p := range m.NodePools {
			if p.Name == "" || pools[p.Name] {
				add("%s.nodePools[%d].name %q: required and unique", at, j, p.Name)
			}
			pools[p.Name] = true
			if p.Count < 0 {
				add("%s.nodePools[%d].count: must not be negative", at, j)
			}
			if _, v := SplitNodeImage(p.NodeImage); v == "" {
				add("%s.nodePools[%d].nodeImage %q: want <os sku>-<version>", at, j, p.NodeImage)
			}
		}
		for key, w := range map[string]*MaintenanceWindow{"maintenanceWindow": m.MaintenanceWindow, "nodeOSMaintenanceWindow": m.NodeOSMaintenanceWindow} {
			if w == nil {
				continue
			}
			if (w.Weekly == "") == !w.Daily {
				add("%s.%s: set exactly one of weekly and daily", at, key)
			}
			if w.Weekly != "" && !weekdays[w.Weekly] {
				add("%s.%s.weekly %q: not a day of the week", at, key, w.Weekly)
			}
			if !hhmm.MatchString(w.StartTime) {
				add("%s.%s.startTime %q: want HH:mm", at, key, w.StartTime)
			}
			if w.DurationHours < 4 || w.DurationHours > 24 {
				add("%s.%s.durationHours %d: AKS allows 4 to 24", at, key, w.DurationHours)
			}
			if w.UTCOffset != "" && !offsetPattern.MatchString(w.UTCOffset) {
				add("%s.%s.utcOffset %q: want ±HH:mm", at, key, w.UTCOffset)
			}
			if w.StartDate != "" {
				if _, err := time.Parse(time.DateOnly, w.StartDate); err != nil {
					add("%s.%s.startDate %q: want YYYY-MM-DD", at, key, w.StartDate)
				}
			}
		}
		if m.Karpenter != nil {
			names := map[string]bool{}
			for j, p := range m.Karpenter.NodePools {
				pat := fmt.Sprintf("%s.karpenter.nodePools[%d]", at, j)
				if !namePattern.MatchString(p.Name) || names[p.Name] {
					add("%s.name %q: required, unique, DNS label", pat, p.Name)
				}
				names[p.Name] = true
				if p.Nodes < 0 || p.NotReady < 0 || p.Deleting < 0 || p.NotReady+p.Deleting > p.Nodes {
					add("%s: nodes, notReady and deleting must be non-negative with notReady+deleting <= nodes", pat)
				}
				if len(p.AgeHours) > p.Nodes {
					add("%s.ageHours: %d ages for %d nodes", pat, len(p.AgeHours), p.Nodes)
				}
				if p.ExpireAfter != "" && p.ExpireAfter != "Never" {
					if _, err := time.ParseDuration(p.ExpireAfter); err != nil {
						add("%s.expireAfter %q: a duration or Never", pat, p.ExpireAfter)
					}
				}
				for _, e := range p.nodeErrors() {
					add("%s.%s", pat, e)
				}
			}
			for _, e := range m.Karpenter.pdbErrors(at) {
				add("%s", e)
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("invalid fleet file:\n  %s", strings.Join(errs, "\n  "))
	}
	return nil
}

func (f *File) defaults() {
	if f.Clock.Start.IsZero() {
		f.Clock.Start = time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	}
	if f.Clock.Speed == 0 {
		f.Clock.Speed = 1
	}
	for i := range f.Members {
		m := &f.Members[i]
		if m.Upgrade.Duration.Duration == 0 {
			m.Upgrade.Duration.Duration = DefaultUpgradeDuration
		}
		for _, w := range []*MaintenanceWindow{m.MaintenanceWindow, m.NodeOSMaintenanceWindow} {
			if w == nil {
				continue
			}
			if w.UTCOffset == "" {
				w.UTCOffset = "+00:00"
			}
			if w.Weekly != "" && w.IntervalWeeks == 0 {
				w.IntervalWeeks = 1
			}
		}
	}
}

// Member returns the member with that name.
func (f *File) Member(name string) (*Member, bool) {
	for i := range f.Members {
		if f.Members[i].Name == name {
			return &f.Members[i], true
		}
	}
	return nil, false
}
