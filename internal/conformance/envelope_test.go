package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	placementv1 "go.goms.io/fleet/apis/placement/v1"
	placementv1beta1 "go.goms.io/fleet/apis/placement/v1beta1"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/envelope"
	enginehub "github.com/fleetops/terraform-provider-fleet/internal/engine/hub"
)

const (
	envelopeSeed  = 20261125
	envelopeCases = 100
)

// envelopeCase is one generated envelope: its namespace ("" for a ClusterResourceEnvelope) and its
// objects as JSON.
type envelopeCase struct {
	name, namespace string
	objects         []string
}

// envelopeObject draws one wrapped object: a cluster-scoped or a namespaced kind, with no
// metadata.namespace, the envelope's, or another.
func envelopeObject(rng *rand.Rand, envNS string, i int) string {
	kinds := []struct{ apiVersion, kind string }{
		{"rbac.authorization.k8s.io/v1", "ClusterRole"},
		{"admissionregistration.k8s.io/v1", "ValidatingWebhookConfiguration"},
		{"v1", "ConfigMap"},
		{"v1", "ResourceQuota"},
		{"rbac.authorization.k8s.io/v1", "Role"},
	}
	k := kinds[rng.IntN(len(kinds))]
	md := map[string]any{"name": fmt.Sprintf("obj-%d", i)}
	switch r := rng.IntN(10); {
	case r < 5 && envNS != "":
		md["namespace"] = envNS
	case r < 2:
		md["namespace"] = "elsewhere"
	case r == 9:
		md["namespace"] = "elsewhere"
	}
	b, _ := json.Marshal(map[string]any{"apiVersion": k.apiVersion, "kind": k.kind, "metadata": md})
	return string(b)
}

// envelopeCasesFor generates n envelopes of both kinds, 1-4 objects each, about half of them of
// objects KubeFleet refuses.
func envelopeCasesFor(seed uint64, n int) []envelopeCase {
	rng := rand.New(rand.NewPCG(seed, seed^0x5eed))
	out := make([]envelopeCase, 0, n)
	for i := range n {
		c := envelopeCase{name: fmt.Sprintf("env-conf-%02d", i)}
		if i%2 == 1 {
			c.namespace = c.name
		}
		for j := range 1 + rng.IntN(4) {
			c.objects = append(c.objects, envelopeObject(rng, c.namespace, j))
		}
		out = append(out, c)
	}
	return out
}

// refusalPhrase is the part of v0.18.9's error that names the refusal
// (pkg/controllers/workgenerator/envelope.go, extractManifestsFromEnvelopeCR).
var refusalPhrase = map[envelope.Refusal]string{
	envelope.NamespacedInCluster:       "has been wrapped in a cluster resource envelope",
	envelope.ClusterScopedInNamespaced: "a cluster scope object",
	envelope.OtherNamespace:            "has been wrapped in a resource envelope from another namespace",
}

// TestEnvelopeConformance places generated envelopes with KubeFleet v0.18.9's real hub agent and
// compares each with the engine's verdict: an envelope the engine accepts gets a Work on the member
// holding exactly WorkManifests (same objects, same order) and a True WorkSynchronized binding
// condition; one it refuses gets no Work and a False condition whose message is v0.18.9's error for
// one of the objects the engine refuses. Agreement must be 100 %.
func TestEnvelopeConformance(t *testing.T) {
	if fleetEnv == nil {
		t.Skip("set TF_ACC=1 to run the conformance test against a local fleet")
	}
	start := time.Now()
	ctx := context.Background()
	h := connect(t, fleetEnv)
	hc := hubClient(t, fleetEnv)
	if err := h.waitFleetSettled(ctx, fleet); err != nil {
		t.Fatal(err)
	}
	healthy, _, _ := sampleMembers(fleet)
	member := healthy[0]
	cases := envelopeCasesFor(envelopeSeed, envelopeCases)
	var accepted, refused, mismatches atomic.Int64
	jobs := make(chan envelopeCase)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c := range jobs {
				ok, err := runEnvelopeCase(ctx, h, hc, member, c)
				switch {
				case err != nil:
					mismatches.Add(1)
					t.Errorf("%s (%s %v): %v", c.name, envelope.Kind(c.namespace), c.objects, err)
				case ok:
					accepted.Add(1)
				default:
					refused.Add(1)
				}
			}
		}()
	}
	for _, c := range cases {
		jobs <- c
	}
	close(jobs)
	wg.Wait()
	t.Logf("envelopes: %d compared with the hub agent (%d accepted with their Work, %d refused), %d mismatches, in %s",
		len(cases), accepted.Load(), refused.Load(), mismatches.Load(), time.Since(start).Round(time.Millisecond))
	if accepted.Load() == 0 || refused.Load() == 0 {
		t.Errorf("the generated cases must hold both outcomes: %d accepted, %d refused", accepted.Load(), refused.Load())
	}
}

// runEnvelopeCase creates the envelope and a placement of it on member, waits for the hub agent's
// verdict and compares it with the engine's; ok reports whether the engine accepts the envelope.
func runEnvelopeCase(ctx context.Context, h *hub, hc *enginehub.Client, member string, c envelopeCase) (ok bool, err error) {
	ok = true
	var refusals []envelope.Refusal
	manifests := make([][]envelope.Document, 0, len(c.objects))
	for _, o := range c.objects {
		docs, err := envelope.Split(o)
		if err != nil {
			return false, err
		}
		manifests = append(manifests, docs)
		if r := envelope.Check(c.namespace, docs[0].ID); r != envelope.Accepted {
			ok = false
			refusals = append(refusals, r)
		}
	}
	selector := placementv1.ResourceSelectorTerm{Group: placementv1beta1.GroupVersion.Group, Version: "v1beta1", Kind: envelope.ClusterKind, Name: c.name}
	if c.namespace != "" {
		if err := h.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: c.namespace}}); err != nil && !apierrors.IsAlreadyExists(err) {
			return ok, err
		}
		selector = placementv1.ResourceSelectorTerm{Version: "v1", Kind: "Namespace", Name: c.namespace}
	}
	if err := hc.CreateEnvelope(ctx, c.namespace, c.name, envelope.Data(manifests)); err != nil {
		return ok, fmt.Errorf("creating the envelope: %w", err)
	}
	defer func() { _ = hc.DeleteEnvelope(context.Background(), c.namespace, c.name) }()
	crp := &placementv1.ClusterResourcePlacement{
		ObjectMeta: metav1.ObjectMeta{Name: c.name},
		Spec: placementv1.PlacementSpec{
			ResourceSelectors: []placementv1.ResourceSelectorTerm{selector},
			Policy:            &placementv1.PlacementPolicy{PlacementType: placementv1.PickFixedPlacementType, ClusterNames: []string{member}},
		},
	}
	if err := h.c.Create(ctx, crp); err != nil {
		return ok, err
	}
	defer func() { _ = h.deletePlacementAndWait(context.Background(), c.name) }()

	// The hub agent's verdict: the binding's WorkSynchronized condition.
	var cond *metav1.Condition
	var last string
	err = wait.PollUntilContextTimeout(ctx, 250*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		var bl placementv1.ClusterResourceBindingList
		if err := h.c.List(ctx, &bl, client.MatchingLabels{placementv1beta1.PlacementTrackingLabel: c.name}); err != nil {
			return false, err
		}
		if len(bl.Items) != 1 {
			last = fmt.Sprintf("%d bindings", len(bl.Items))
			return false, nil
		}
		b := bl.Items[0]
		cond = meta.FindStatusCondition(b.Status.Conditions, string(placementv1.ResourceBindingWorkSynchronized))
		if cond == nil || cond.ObservedGeneration != b.Generation {
			last = fmt.Sprintf("binding %s: no WorkSynchronized condition for generation %d", b.Name, b.Generation)
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return ok, fmt.Errorf("waiting for the hub agent: %s: %w", last, err)
	}
	works, err := hc.EnvelopeWorks(ctx, member, c.namespace, c.name)
	if err != nil {
		return ok, err
	}
	if !ok {
		if cond.Status != metav1.ConditionFalse || len(works) != 0 {
			return ok, fmt.Errorf("the engine refuses %v; the hub agent: %s %s (%s), %d envelope Works", refusals, cond.Status, cond.Reason, cond.Message, len(works))
		}
		for _, r := range refusals {
			if strings.Contains(cond.Message, refusalPhrase[r]) {
				return ok, nil
			}
		}
		return ok, fmt.Errorf("the engine refuses %v; the hub agent says %q", refusals, cond.Message)
	}
	if cond.Status != metav1.ConditionTrue || len(works) != 1 {
		return ok, fmt.Errorf("the engine accepts; the hub agent: %s %s (%s), %d envelope Works", cond.Status, cond.Reason, cond.Message, len(works))
	}
	env, err := hc.Envelope(ctx, c.namespace, c.name)
	if err != nil {
		return ok, err
	}
	want := envelope.WorkManifests(env.GetData())
	got := works[0].Spec.Workload.Manifests
	if len(got) != len(want) {
		return ok, fmt.Errorf("Work %s has %d manifests, the engine %d", works[0].Name, len(got), len(want))
	}
	for i := range got {
		if string(got[i].Raw) != string(want[i]) {
			return ok, fmt.Errorf("Work %s manifest %d = %s, the engine %s", works[0].Name, i, got[i].Raw, want[i])
		}
	}
	return ok, nil
}
