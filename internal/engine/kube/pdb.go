package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"
)

// PDBPageSize is the `limit` of each PodDisruptionBudget list request; the rest comes with
// `continue`, so a cluster with thousands of PDBs never answers in one huge body.
var PDBPageSize int64 = 500

// pdbListRequests counts the PodDisruptionBudget list requests of this process (tests read it).
var pdbListRequests atomic.Int64

// PDBListRequests is how many PodDisruptionBudget list requests (pages) this process has sent.
func PDBListRequests() int64 { return pdbListRequests.Load() }

// PDBs is a cluster's PodDisruptionBudgets as the disruption preview reads them.
type PDBs struct {
	Items []policyv1.PodDisruptionBudget
	// Malformed are the items the decoder refused (an unexpected shape), by namespace/name as far
	// as their metadata could be read.
	Malformed []types.NamespacedName
}

// pdbCache holds one cluster's PDBs for the provider process: node pools of the same cluster share
// one read.
type pdbCache struct {
	mu   sync.Mutex
	done bool
	pdbs PDBs
	err  error
}

var pdbGVK = schema.GroupVersionKind{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"}

// PodDisruptionBudgets lists the cluster's PodDisruptionBudgets in every namespace, page by page,
// once per Client (that is, per cluster and provider process); later calls return the same result,
// a failure included unless the caller's context ended. Each item is decoded on its own with
// client-go's decoder, so one object in an unexpected shape is reported in Malformed instead of
// failing the list.
func (c *Client) PodDisruptionBudgets(ctx context.Context) (PDBs, error) {
	c.pdb.mu.Lock()
	defer c.pdb.mu.Unlock()
	if c.pdb.done {
		return c.pdb.pdbs, c.pdb.err
	}
	pdbs, err := c.listPDBs(ctx)
	if err != nil && ctx.Err() != nil {
		return PDBs{}, err // cancelled: the next plan step may try again
	}
	c.pdb.done, c.pdb.pdbs, c.pdb.err = true, pdbs, err
	return pdbs, err
}

func (c *Client) listPDBs(ctx context.Context) (PDBs, error) {
	var out PDBs
	next := ""
	for {
		req := c.Kubernetes.PolicyV1().RESTClient().Get().Resource("poddisruptionbudgets").
			Param("limit", strconv.FormatInt(PDBPageSize, 10))
		if next != "" {
			req = req.Param("continue", next)
		}
		pdbListRequests.Add(1)
		raw, err := req.Do(ctx).Raw()
		if err != nil {
			return PDBs{}, fmt.Errorf("listing PodDisruptionBudgets: %w", err)
		}
		page, err := DecodePDBPage(raw, &out)
		if err != nil {
			return PDBs{}, err
		}
		if page == "" {
			return out, nil
		}
		next = page
	}
}

// DecodePDBPage decodes one page of a PodDisruptionBudget list into out (items it can decode to
// Items, the others to Malformed) and returns the page's `continue` token. Only a body that is not
// a list at all is an error.
func DecodePDBPage(raw []byte, out *PDBs) (string, error) {
	var list struct {
		Metadata struct {
			Continue string `json:"continue"`
		} `json:"metadata"`
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return "", fmt.Errorf("decoding the PodDisruptionBudget list: %w", err)
	}
	dec := scheme.Codecs.UniversalDeserializer()
	for i, item := range list.Items {
		var pdb policyv1.PodDisruptionBudget
		if _, _, err := dec.Decode(item, &pdbGVK, &pdb); err == nil {
			out.Items = append(out.Items, pdb)
			continue
		}
		out.Malformed = append(out.Malformed, itemName(item, i))
	}
	return list.Metadata.Continue, nil
}

// itemName is a malformed item's namespace/name, read as loosely as possible; an item without
// readable metadata is named by its place in the list.
func itemName(item json.RawMessage, index int) types.NamespacedName {
	var meta struct {
		Metadata struct {
			Namespace any `json:"namespace"`
			Name      any `json:"name"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(item, &meta)
	ns, _ := meta.Metadata.Namespace.(string)
	name, _ := meta.Metadata.Name.(string)
	if name == "" {
		name = fmt.Sprintf("(item %d of a list page)", index)
	}
	return types.NamespacedName{Namespace: ns, Name: name}
}
