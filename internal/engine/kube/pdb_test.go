package kube

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
)

// pdbServer answers PodDisruptionBudget lists as an API server does: pages of `limit` items with
// a `continue` token; item 4 has an object where minAvailable takes an int or a string. It counts
// the requests it gets.
func pdbServer(t *testing.T, status int) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	items := make([]string, 7)
	for i := range items {
		items[i] = fmt.Sprintf(`{"metadata":{"namespace":"ns","name":"pdb-%d"},"spec":{"maxUnavailable":1,"selector":{"matchLabels":{"app":"a"}}},"status":{"disruptionsAllowed":1}}`, i)
	}
	items[4] = `{"metadata":{"namespace":"db","name":"weird"},"spec":{"minAvailable":{"half":true}}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if r.URL.Path != "/apis/policy/v1/poddisruptionbudgets" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		if status != http.StatusOK {
			w.WriteHeader(status)
			fmt.Fprint(w, `{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","code":403,"message":"poddisruptionbudgets.policy is forbidden: User \"reader\" cannot list resource \"poddisruptionbudgets\" in API group \"policy\" at the cluster scope"}`)
			return
		}
		limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
		from, _ := strconv.Atoi(r.URL.Query().Get("continue"))
		to := min(from+limit, len(items))
		next := ""
		if to < len(items) {
			next = strconv.Itoa(to)
		}
		body := `{"kind":"PodDisruptionBudgetList","apiVersion":"policy/v1","metadata":{"continue":"` + next + `"},"items":[`
		for i := from; i < to; i++ {
			if i > from {
				body += ","
			}
			body += items[i]
		}
		fmt.Fprint(w, body+"]}")
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestPodDisruptionBudgetsPagedOnce: seven PDBs in pages of three take three requests, once per
// client; the malformed item is named, the others decoded.
func TestPodDisruptionBudgetsPagedOnce(t *testing.T) {
	srv, requests := pdbServer(t, http.StatusOK)
	old := PDBPageSize
	PDBPageSize = 3
	t.Cleanup(func() { PDBPageSize = old })
	c, err := NewClient(&rest.Config{Host: srv.URL}, "")
	if err != nil {
		t.Fatal(err)
	}
	before := PDBListRequests()
	for range 3 { // three node pools of the same cluster
		pdbs, err := c.PodDisruptionBudgets(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(pdbs.Items) != 6 || len(pdbs.Malformed) != 1 || pdbs.Malformed[0] != (types.NamespacedName{Namespace: "db", Name: "weird"}) {
			t.Fatalf("items %d, malformed %v", len(pdbs.Items), pdbs.Malformed)
		}
		if pdbs.Items[5].Name != "pdb-6" || pdbs.Items[0].Status.DisruptionsAllowed != 1 {
			t.Fatalf("decoded %+v", pdbs.Items[5])
		}
	}
	if got, counted := requests.Load(), PDBListRequests()-before; got != 3 || counted != 3 {
		t.Fatalf("%d requests reached the server (%d counted), want 3 pages once", got, counted)
	}
}

// TestPodDisruptionBudgetsForbidden: a 403 is an error apierrors recognises, read once too.
func TestPodDisruptionBudgetsForbidden(t *testing.T) {
	srv, requests := pdbServer(t, http.StatusForbidden)
	c, err := NewClient(&rest.Config{Host: srv.URL}, "")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := c.PodDisruptionBudgets(context.Background()); !apierrors.IsForbidden(err) {
			t.Fatalf("err %v, want Forbidden", err)
		}
	}
	if requests.Load() != 1 {
		t.Fatalf("%d requests, want 1", requests.Load())
	}
}

// TestDecodePDBPageNotAList: only a body that is no list at all is an error.
func TestDecodePDBPageNotAList(t *testing.T) {
	var out PDBs
	if _, err := DecodePDBPage([]byte(`[1,2]`), &out); err == nil {
		t.Fatal("want an error")
	}
	if _, err := DecodePDBPage([]byte(`{"items":[{"metadata":{"name":7}},"x"]}`), &out); err != nil || len(out.Malformed) != 2 {
		t.Fatalf("err %v, malformed %v", err, out.Malformed)
	}
}
