package fleetfile

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"strconv"
)

// Generate describes many members compactly; Parse appends the members it
// generates to the file's explicit members. The same file and seed always
// give the same members.
//
// Categorical choices (regions, groups, label values, window days and start
// times) are apportioned exactly by weight (largest remainder) and then
// shuffled, and fractions are rounded to a member count, so a fleet of 1,000
// with regions {eastus: 3, westeurope: 1} has exactly 750 and 250 members.
// Numeric ranges are drawn uniformly. Kubernetes versions and node images are
// drawn uniformly from the member's region's kubernetesVersions and
// nodeImages.
type Generate struct {
	Count      int    `json:"count"`
	NamePrefix string `json:"namePrefix,omitempty"` // default "member-"; names are <prefix><zero-padded index from 1>
	Seed       uint64 `json:"seed,omitempty"`
	// Regions, Groups: name → weight. Regions must be among the file's regions.
	Regions map[string]float64 `json:"regions"`
	Groups  map[string]float64 `json:"groups,omitempty"`
	// Labels: label key → value → weight; every member gets every key.
	Labels map[string]map[string]float64 `json:"labels,omitempty"`
	// Properties: property name → numeric range, e.g.
	// kubernetes.azure.com/per-cpu-core-cost: {min: 0.05, max: 0.12, decimals: 3}.
	Properties map[string]Range `json:"properties,omitempty"`
	// NodeCount is the size of the member's one node pool, "system" (default 3).
	NodeCount *Range `json:"nodeCount,omitempty"`
	// Taint is put on that fraction of the members.
	Taint *GeneratedTaint `json:"taint,omitempty"`
	// UnhealthyFraction of the members send no heartbeat.
	UnhealthyFraction  float64             `json:"unhealthyFraction,omitempty"`
	MaintenanceWindows *GeneratedWindows   `json:"maintenanceWindows,omitempty"`
	Resources          *GeneratedResources `json:"resources,omitempty"`
}

// Range is a uniform numeric range; values are written with Decimals digits
// after the point (integers when 0).
type Range struct {
	Min      float64 `json:"min"`
	Max      float64 `json:"max"`
	Decimals int     `json:"decimals,omitempty"`
}

type GeneratedTaint struct {
	Fraction float64 `json:"fraction"`
	Key      string  `json:"key"`
	Value    string  `json:"value,omitempty"` // effect is NoSchedule, the only one KubeFleet supports
}

// GeneratedWindows gives a weekly maintenance window to all members but
// NoneFraction, on Days (default Saturday and Sunday) at StartTimes (default
// 00:00), spread evenly.
type GeneratedWindows struct {
	NoneFraction  float64  `json:"noneFraction,omitempty"`
	Days          []string `json:"days,omitempty"`
	StartTimes    []string `json:"startTimes,omitempty"`
	DurationHours int      `json:"durationHours,omitempty"` // default 4
}

// GeneratedResources: capacity in whole CPUs and GiB; allocatable is a
// fraction of capacity and available a fraction of allocatable.
type GeneratedResources struct {
	CPU         Range  `json:"cpu"`
	MemoryGi    Range  `json:"memoryGi"`
	Allocatable *Range `json:"allocatable,omitempty"` // default 0.9
	Available   *Range `json:"available,omitempty"`   // default 0.5
}

const (
	defaultNamePrefix = "member-"
	defaultNodePool   = "system"
	maxGenerated      = 100000
	// A member's hub namespace is fleet-member-<name>, a DNS label of at most 63.
	maxMemberName = 63 - len("fleet-member-")
)

var prefixPattern = regexp.MustCompile(`^[a-z]([-a-z0-9]*)$`)

func (g *Generate) validate(regions map[string]Region) []string {
	var errs []string
	add := func(format string, a ...any) { errs = append(errs, fmt.Sprintf("generate."+format, a...)) }
	if g.Count < 1 || g.Count > maxGenerated {
		add("count %d: must be 1 to %d", g.Count, maxGenerated)
	}
	if p := g.prefix(); !prefixPattern.MatchString(p) || len(p)+len(strconv.Itoa(max(g.Count, 1))) > maxMemberName {
		add("namePrefix %q: must start with a lowercase letter, hold only lowercase letters, digits and dashes, and leave room for the index within %d characters", p, maxMemberName)
	}
	if len(g.Regions) == 0 {
		add("regions: at least one region with a weight is required")
	}
	for _, name := range slices.Sorted(maps.Keys(g.Regions)) {
		r, ok := regions[name]
		switch {
		case !ok:
			add("regions.%s: not among the file's regions", name)
		case len(r.KubernetesVersions) == 0 || len(r.NodeImages) == 0:
			add("regions.%s: the region needs kubernetesVersions and nodeImages to draw from", name)
		}
	}
	errs = append(errs, checkWeights("generate.regions", g.Regions)...)
	errs = append(errs, checkWeights("generate.groups", g.Groups)...)
	for _, k := range slices.Sorted(maps.Keys(g.Labels)) {
		if k == "" {
			add("labels: empty label key")
		}
		if len(g.Labels[k]) == 0 {
			add("labels.%s: at least one value with a weight is required", k)
		}
		errs = append(errs, checkWeights("generate.labels."+k, g.Labels[k])...)
	}
	for _, k := range slices.Sorted(maps.Keys(g.Properties)) {
		errs = append(errs, g.Properties[k].check("generate.properties."+k, math.Inf(-1))...)
	}
	if g.NodeCount != nil {
		errs = append(errs, g.NodeCount.check("generate.nodeCount", 0)...)
	}
	checkFraction := func(at string, v float64) {
		if v < 0 || v > 1 || math.IsNaN(v) {
			add("%s %v: must be between 0 and 1", at, v)
		}
	}
	checkFraction("unhealthyFraction", g.UnhealthyFraction)
	if t := g.Taint; t != nil {
		checkFraction("taint.fraction", t.Fraction)
		if t.Key == "" {
			add("taint.key: required")
		}
	}
	if w := g.MaintenanceWindows; w != nil {
		checkFraction("maintenanceWindows.noneFraction", w.NoneFraction)
		for _, d := range w.Days {
			if !weekdays[d] {
				add("maintenanceWindows.days: %q is not a day of the week", d)
			}
		}
		for _, s := range w.StartTimes {
			if !hhmm.MatchString(s) {
				add("maintenanceWindows.startTimes: %q: want HH:mm", s)
			}
		}
		if w.DurationHours != 0 && (w.DurationHours < 4 || w.DurationHours > 24) {
			add("maintenanceWindows.durationHours %d: AKS allows 4 to 24", w.DurationHours)
		}
	}
	if r := g.Resources; r != nil {
		errs = append(errs, r.CPU.check("generate.resources.cpu", 1)...)
		errs = append(errs, r.MemoryGi.check("generate.resources.memoryGi", 1)...)
		for at, f := range map[string]*Range{"allocatable": r.Allocatable, "available": r.Available} {
			if f != nil && (f.Min <= 0 || f.Max > 1) {
				add("resources.%s: a fraction range within (0, 1]", at)
			}
			if f != nil {
				errs = append(errs, f.check("generate.resources."+at, 0)...)
			}
		}
	}
	return errs
}

func checkWeights(at string, weights map[string]float64) []string {
	var errs []string
	total := 0.0
	for _, k := range slices.Sorted(maps.Keys(weights)) {
		w := weights[k]
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			errs = append(errs, fmt.Sprintf("%s.%s: weight %v must be a non-negative number", at, k, w))
		}
		total += w
	}
	if len(weights) > 0 && total <= 0 {
		errs = append(errs, fmt.Sprintf("%s: the weights must not all be zero", at))
	}
	return errs
}

func (r Range) check(at string, floor float64) []string {
	var errs []string
	if r.Min > r.Max || math.IsNaN(r.Min) || math.IsNaN(r.Max) {
		errs = append(errs, fmt.Sprintf("%s: min %v is above max %v", at, r.Min, r.Max))
	}
	if r.Min < floor {
		errs = append(errs, fmt.Sprintf("%s: min %v must be at least %v", at, r.Min, floor))
	}
	if r.Decimals < 0 || r.Decimals > 9 {
		errs = append(errs, fmt.Sprintf("%s: decimals %d must be 0 to 9", at, r.Decimals))
	}
	return errs
}

func (g *Generate) prefix() string {
	if g.NamePrefix == "" {
		return defaultNamePrefix
	}
	return g.NamePrefix
}

// members generates the members; g has been validated.
func (g *Generate) members(regions map[string]Region) []Member {
	n := g.Count
	rng := rand.New(rand.NewPCG(g.Seed, 0x6c6f63616c666c74)) // "localflt"
	width := len(strconv.Itoa(n))
	out := make([]Member, n)
	// Every attribute is drawn in a fixed order from one stream, so a seed
	// always gives the same fleet.
	location := apportion(rng, g.Regions, n)
	var group []string
	if len(g.Groups) > 0 {
		group = apportion(rng, g.Groups, n)
	}
	labels := map[string][]string{}
	for _, k := range slices.Sorted(maps.Keys(g.Labels)) {
		labels[k] = apportion(rng, g.Labels[k], n)
	}
	unhealthy := chooseFraction(rng, g.UnhealthyFraction, n)
	var tainted []bool
	if g.Taint != nil {
		tainted = chooseFraction(rng, g.Taint.Fraction, n)
	}
	var windows []*MaintenanceWindow
	if g.MaintenanceWindows != nil {
		windows = g.MaintenanceWindows.assign(rng, n)
	}
	nodeCount := Range{Min: 3, Max: 3}
	if g.NodeCount != nil {
		nodeCount = *g.NodeCount
	}
	for i := range out {
		m := &out[i]
		m.Name = fmt.Sprintf("%s%0*d", g.prefix(), width, i+1)
		m.Location = location[i]
		r := regions[m.Location]
		if group != nil {
			m.Group = group[i]
		}
		if len(labels) > 0 {
			m.Labels = make(map[string]string, len(labels))
			for k, vs := range labels {
				m.Labels[k] = vs[i]
			}
		}
		if unhealthy[i] {
			m.Healthy = new(false)
		}
		if tainted != nil && tainted[i] {
			m.Taints = []Taint{{Key: g.Taint.Key, Value: g.Taint.Value, Effect: "NoSchedule"}}
		}
		m.KubernetesVersion = r.KubernetesVersions[rng.IntN(len(r.KubernetesVersions))]
		images := nodeImages(r)
		m.NodePools = []NodePool{{Name: defaultNodePool, Count: int(nodeCount.draw(rng, 0)), NodeImage: images[rng.IntN(len(images))]}}
		if windows != nil {
			m.MaintenanceWindow = windows[i]
		}
		if len(g.Properties) > 0 {
			m.Properties = make(map[string]string, len(g.Properties))
			for _, k := range slices.Sorted(maps.Keys(g.Properties)) {
				p := g.Properties[k]
				m.Properties[k] = strconv.FormatFloat(p.draw(rng, p.Decimals), 'f', p.Decimals, 64)
			}
		}
		if g.Resources != nil {
			m.Resources = g.Resources.draw(rng)
		}
	}
	return out
}

// draw is uniform in [Min, Max], rounded to decimals.
func (r Range) draw(rng *rand.Rand, decimals int) float64 {
	v := r.Min + rng.Float64()*(r.Max-r.Min)
	p := math.Pow10(decimals)
	return math.Min(r.Max, math.Max(r.Min, math.Round(v*p)/p))
}

func (w *GeneratedWindows) assign(rng *rand.Rand, n int) []*MaintenanceWindow {
	days, starts, hours := w.Days, w.StartTimes, w.DurationHours
	if len(days) == 0 {
		days = []string{"Saturday", "Sunday"}
	}
	if len(starts) == 0 {
		starts = []string{"00:00"}
	}
	if hours == 0 {
		hours = 4
	}
	none := chooseFraction(rng, w.NoneFraction, n)
	with := 0
	for _, skip := range none {
		if !skip {
			with++
		}
	}
	// Days and start times are spread over the members that have a window.
	day := apportion(rng, even(days), with)
	start := apportion(rng, even(starts), with)
	out := make([]*MaintenanceWindow, n)
	j := 0
	for i := range out {
		if !none[i] {
			out[i] = &MaintenanceWindow{Weekly: day[j], StartTime: start[j], DurationHours: hours}
			j++
		}
	}
	return out
}

func (r *GeneratedResources) draw(rng *rand.Rand) *Resources {
	alloc, avail := Range{Min: 0.9, Max: 0.9, Decimals: 3}, Range{Min: 0.5, Max: 0.5, Decimals: 3}
	if r.Allocatable != nil {
		alloc = *r.Allocatable
	}
	if r.Available != nil {
		avail = *r.Available
	}
	cpu, mem := r.CPU.draw(rng, 0), r.MemoryGi.draw(rng, 0)
	fa, fv := alloc.draw(rng, 3), avail.draw(rng, 3)
	// Allocatable and available in milli-CPUs and MiB, so the fractions survive.
	return &Resources{
		Capacity:    map[string]string{"cpu": strconv.Itoa(int(cpu)), "memory": fmt.Sprintf("%dGi", int(mem))},
		Allocatable: map[string]string{"cpu": fmt.Sprintf("%dm", int(cpu*1000*fa)), "memory": fmt.Sprintf("%dMi", int(mem*1024*fa))},
		Available:   map[string]string{"cpu": fmt.Sprintf("%dm", int(cpu*1000*fa*fv)), "memory": fmt.Sprintf("%dMi", int(mem*1024*fa*fv))},
	}
}

// nodeImages lists a region's "<os sku>-<version>" images in a stable order.
func nodeImages(r Region) []string {
	var out []string
	for _, sku := range slices.Sorted(maps.Keys(r.NodeImages)) {
		for _, v := range r.NodeImages[sku] {
			out = append(out, sku+"-"+v)
		}
	}
	return out
}

// apportion gives each key a share of n proportional to its weight (the
// largest-remainder method, ties to the earlier key), shuffled.
func apportion(rng *rand.Rand, weights map[string]float64, n int) []string {
	keys := slices.Sorted(maps.Keys(weights))
	total := 0.0
	for _, k := range keys {
		total += weights[k]
	}
	counts := make([]int, len(keys))
	rest := make([]float64, len(keys))
	assigned := 0
	for i, k := range keys {
		exact := weights[k] / total * float64(n)
		counts[i] = int(math.Floor(exact))
		rest[i] = exact - float64(counts[i])
		assigned += counts[i]
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return rest[order[a]] > rest[order[b]] })
	for i := 0; assigned < n; i++ {
		counts[order[i%len(order)]]++
		assigned++
	}
	out := make([]string, 0, n)
	for i, k := range keys {
		for range counts[i] {
			out = append(out, k)
		}
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// chooseFraction marks round(fraction·n) of n members, at random.
func chooseFraction(rng *rand.Rand, fraction float64, n int) []bool {
	out := make([]bool, n)
	k := int(math.Round(fraction * float64(n)))
	for _, i := range rng.Perm(n)[:k] {
		out[i] = true
	}
	return out
}

func even(keys []string) map[string]float64 {
	out := make(map[string]float64, len(keys))
	for _, k := range keys {
		out[k] = 1
	}
	return out
}
