package placement

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/envelope"
)

// fleet_envelope's manifests: parsing, the checks of KubeFleet v0.18.9 and the provider's refusal
// of Secrets, and reading them back from the hub.

type envelopeData = map[string]runtime.RawExtension

// checkManifests parses the list's elements and checks them as KubeFleet v0.18.9 would for an
// envelope of namespace (null: a ClusterResourceEnvelope; unknown: the scope is not checked),
// reporting errors at their paths (manifests[i]); known is false when the list or an element is
// unknown (those are skipped).
func checkManifests(namespace types.String, list types.List, diags *diag.Diagnostics) (docs [][]envelope.Document, known bool) {
	docs, known = parseManifests(list, diags)
	if diags.HasError() {
		return docs, known
	}
	root := path.Root("manifests")
	count := 0
	for i, ds := range docs {
		for j, d := range ds {
			count++
			if envelope.IsSecret(d.ID) {
				diags.AddAttributeError(root.AtListIndex(i), "Secret in an envelope",
					fmt.Sprintf("manifests[%d]%s: %s is a Secret: an envelope's manifests are shown in plans and kept in Terraform's state in clear "+
						"text. A Secret is harmless on the hub, so it needs no envelope: create it in a hub namespace (with the kubernetes "+
						"provider, preferably through a write-only attribute that keeps it out of the state) and let a fleet_placement "+
						"select that namespace; KubeFleet places the Secret itself on the members.", i, docPosition(ds, j), d.ID))
				continue
			}
			if namespace.IsUnknown() {
				continue
			}
			ns := namespace.ValueString()
			if refusal := envelope.Check(ns, d.ID); refusal != envelope.Accepted {
				diags.AddAttributeError(root.AtListIndex(i), "Object not allowed in a "+envelope.Kind(ns),
					fmt.Sprintf("manifests[%d]%s: %s", i, docPosition(ds, j), refusal.Explain(ns, d.ID)))
			}
		}
	}
	if count > envelope.MaxManifests {
		diags.AddAttributeError(root, "Too many objects",
			fmt.Sprintf("The manifests hold %d objects; a KubeFleet envelope holds at most %d (its data's maxProperties). Split them over several envelopes.", count, envelope.MaxManifests))
	}
	if known && !diags.HasError() {
		if n := envelope.DataBytes(envelope.Data(docs)); n > envelope.MaxBytes {
			diags.AddAttributeError(root, "Envelope too large",
				fmt.Sprintf("The manifests take %d bytes as JSON; the hub's etcd takes an object of at most 1.5 MiB (%d bytes of data here). Split them over several envelopes.", n, envelope.MaxBytes))
		}
	}
	return docs, known
}

// parseManifests parses the list's elements, reporting errors at their paths (manifests[i]);
// known is false when the list or an element is unknown (those are skipped).
func parseManifests(list types.List, diags *diag.Diagnostics) (docs [][]envelope.Document, known bool) {
	if list.IsNull() {
		return nil, true
	}
	if list.IsUnknown() {
		return nil, false
	}
	known = true
	root := path.Root("manifests")
	for i, el := range list.Elements() {
		s, ok := el.(types.String)
		if !ok || s.IsUnknown() {
			known = false
			docs = append(docs, nil)
			continue
		}
		if s.IsNull() {
			diags.AddAttributeError(root.AtListIndex(i), "Invalid manifest", "A manifest must not be null.")
			docs = append(docs, nil)
			continue
		}
		d, err := envelope.Split(s.ValueString())
		if err != nil {
			diags.AddAttributeError(root.AtListIndex(i), "Invalid manifest", err.Error())
		}
		docs = append(docs, d)
	}
	if diags.HasError() {
		return docs, known
	}
	if at, first, dup := envelope.Duplicate(docs); dup {
		diags.AddAttributeError(root.AtListIndex(at[0]), "Duplicate object",
			fmt.Sprintf("%s%s is also in manifests[%d]%s: KubeFleet would apply both to the same object.",
				docs[at[0]][at[1]].ID, docPosition(docs[at[0]], at[1]), first[0], docPosition(docs[first[0]], first[1])))
	}
	return docs, known
}

func docPosition(docs []envelope.Document, j int) string {
	if len(docs) == 1 {
		return ""
	}
	return fmt.Sprintf(" (document %d of %d)", j+1, len(docs))
}

// envelopeFromHub turns an envelope's data back into manifests and their keys: a manifest that
// holds the same objects as the prior state's element at its position keeps the prior text, so
// formatting never shows as drift. A Secret (put there outside Terraform) is read without its
// contents, so they never reach the state.
func envelopeFromHub(data map[string]string, prior []string) (manifests, keys []string) {
	texts, keyGroups := envelope.Group(data)
	for i, docs := range texts {
		for j, d := range docs {
			if parsed, err := envelope.Split(d); err == nil && len(parsed) == 1 && envelope.IsSecret(parsed[0].ID) {
				docs[j] = envelope.Redacted(parsed[0])
			}
		}
		text := envelope.Join(docs)
		if i < len(prior) && envelope.Equal(prior[i], docs) {
			text = prior[i]
		}
		manifests = append(manifests, text)
		keys = append(keys, keyGroups[i]...)
	}
	return manifests, keys
}

// legacyNamespace is the namespace of the envelope that replaces a ConfigMap envelope of namespace
// cmNamespace holding manifests: none (a ClusterResourceEnvelope) when no object has a
// metadata.namespace, as KubeFleet v0.18.9 sees it, else the ConfigMap's (a ResourceEnvelope; the
// plan then names any object that does not fit).
func legacyNamespace(cmNamespace string, manifests []string) types.String {
	for _, m := range manifests {
		docs, err := envelope.Split(m)
		if err != nil {
			return types.StringValue(cmNamespace)
		}
		for _, d := range docs {
			if d.ID.Namespace != "" {
				return types.StringValue(cmNamespace)
			}
		}
	}
	return types.StringNull()
}

func stringList(ss []string) types.List {
	if ss == nil {
		ss = []string{}
	}
	elems := make([]types.String, len(ss))
	for i, s := range ss {
		elems[i] = types.StringValue(s)
	}
	l, _ := types.ListValueFrom(context.Background(), types.StringType, elems)
	return l
}
