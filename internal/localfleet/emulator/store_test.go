package emulator

import (
	"errors"
	"net/http"
	"testing"
	"time"
)

func TestStoreETagsAndPreconditions(t *testing.T) {
	s := newStore()
	now := time.Now()
	fleet := "/subscriptions/s/resourceGroups/rg/providers/Microsoft.ContainerService/fleets/f"
	run := fleet + "/updateRuns/r1"
	rec, created, err := s.put(fleet, typeFleets, "v1", precondition{IfNoneMatch: "*"}, now)
	if err != nil || !created || rec.ETag == "" {
		t.Fatalf("create: %v %v %+v", err, created, rec)
	}
	first := rec.ETag
	if _, _, err := s.put(fleet, typeFleets, "v2", precondition{IfNoneMatch: "*"}, now); !isPreconditionFailed(err) {
		t.Fatalf("If-None-Match * on an existing resource: %v", err)
	}
	if _, _, err := s.put(fleet, typeFleets, "v2", precondition{IfMatch: `"stale"`}, now); !isPreconditionFailed(err) {
		t.Fatalf("stale If-Match: %v", err)
	}
	rec, created, err = s.put(fleet, typeFleets, "v2", precondition{IfMatch: first}, now)
	if err != nil || created || rec.ETag == first || rec.Value != "v2" {
		t.Fatalf("replace with the current eTag: %v %v %+v", err, created, rec)
	}
	if _, _, err := s.put(run, "Microsoft.ContainerService/fleets/updateRuns", "run", precondition{}, now); err != nil {
		t.Fatal(err)
	}
	if kids := s.children(fleet, "microsoft.containerservice/fleets/updateruns"); len(kids) != 1 || kids[0].Value != "run" {
		t.Fatalf("children %+v", kids)
	}
	if got := s.ofType("/subscriptions/S", typeFleets); len(got) != 1 {
		t.Fatalf("ofType found %d fleets", len(got))
	}
	if _, err := s.delete(fleet, precondition{IfMatch: first}); !isPreconditionFailed(err) {
		t.Fatalf("delete with a stale If-Match: %v", err)
	}
	if existed, err := s.delete(fleet, precondition{IfMatch: "*"}); err != nil || !existed {
		t.Fatalf("delete: %v %v", existed, err)
	}
	if _, ok := s.get(run); ok {
		t.Fatal("deleting the fleet left its update run")
	}
	if _, err := s.delete(fleet, precondition{IfMatch: "*"}); !isPreconditionFailed(err) {
		t.Fatalf("If-Match * on a missing resource: %v", err)
	}
}

func isPreconditionFailed(err error) bool {
	var ae *armError
	return errors.As(err, &ae) && ae.status == http.StatusPreconditionFailed && ae.code == "PreconditionFailed"
}
