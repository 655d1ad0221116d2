package emulator

import (
	"net/http"
	"sort"
	"strings"
	"time"
)

// record is one ARM resource the emulator holds, with its entity tag.
type record struct {
	ID       string
	Type     string
	ETag     string
	Value    any // the resource's model; its eTag is filled from ETag when served
	Created  time.Time
	Modified time.Time
	parent   string // key of the parent resource's ID
	seq      int
}

// store holds ARM resources by ID (case-insensitive, as ARM IDs are). It is
// not locked itself: the world's mutex guards it.
type store struct {
	records map[string]*record
	seq     int
}

func newStore() *store { return &store{records: map[string]*record{}} }

func storeKey(id string) string { return strings.ToLower(strings.TrimSuffix(id, "/")) }

func parentKey(id string) string {
	k := storeKey(id)
	// An ARM child ID is its parent's ID plus "/<type>/<name>".
	for range 2 {
		if i := strings.LastIndex(k, "/"); i >= 0 {
			k = k[:i]
		}
	}
	return k
}

func (s *store) get(id string) (*record, bool) {
	r, ok := s.records[storeKey(id)]
	return r, ok
}

// children lists the resources of type typ directly under parentID in the
// order they were created.
func (s *store) children(parentID, typ string) []*record {
	pk := storeKey(parentID)
	var out []*record
	for _, r := range s.records {
		if r.parent == pk && strings.EqualFold(r.Type, typ) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// ofType lists every resource of type typ whose ID starts with scopeID
// (a subscription or resource group), in creation order.
func (s *store) ofType(scopeID, typ string) []*record {
	prefix := storeKey(scopeID) + "/"
	var out []*record
	for k, r := range s.records {
		if strings.HasPrefix(k, prefix) && strings.EqualFold(r.Type, typ) {
			out = append(out, r)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].seq < out[j].seq })
	return out
}

// put creates or replaces a resource when pre allows it and gives it a new
// entity tag. created reports whether it did not exist before.
func (s *store) put(id, typ string, v any, pre precondition, now time.Time) (rec *record, created bool, err error) {
	old, exists := s.get(id)
	if err := pre.check(old, exists); err != nil {
		return nil, false, err
	}
	if exists {
		old.Value, old.ETag, old.Modified = v, newETag(), now
		return old, false, nil
	}
	s.seq++
	rec = &record{ID: id, Type: typ, ETag: newETag(), Value: v, Created: now, Modified: now, parent: parentKey(id), seq: s.seq}
	s.records[storeKey(id)] = rec
	return rec, true, nil
}

// delete removes a resource and its descendants when pre allows it.
// existed reports whether it was there.
func (s *store) delete(id string, pre precondition) (existed bool, err error) {
	old, exists := s.get(id)
	if err := pre.check(old, exists); err != nil {
		return false, err
	}
	if !exists {
		return false, nil
	}
	k := storeKey(id)
	for key := range s.records {
		if key == k || strings.HasPrefix(key, k+"/") {
			delete(s.records, key)
		}
	}
	return true, nil
}

// precondition is a request's If-Match / If-None-Match.
type precondition struct{ IfMatch, IfNoneMatch string }

func preconditionOf(r *http.Request) precondition {
	return precondition{IfMatch: r.Header.Get("If-Match"), IfNoneMatch: r.Header.Get("If-None-Match")}
}

func (p precondition) check(rec *record, exists bool) error {
	if p.IfMatch != "" {
		if !exists {
			return armErrorf(http.StatusPreconditionFailed, "PreconditionFailed", "If-Match %s: the resource does not exist", p.IfMatch)
		}
		if p.IfMatch != "*" && !etagMatches(p.IfMatch, rec.ETag) {
			return armErrorf(http.StatusPreconditionFailed, "PreconditionFailed", "If-Match %s does not match the resource's current eTag %s", p.IfMatch, rec.ETag)
		}
	}
	if p.IfNoneMatch != "" && exists {
		if p.IfNoneMatch == "*" || etagMatches(p.IfNoneMatch, rec.ETag) {
			return armErrorf(http.StatusPreconditionFailed, "PreconditionFailed", "If-None-Match %s: the resource already exists with eTag %s", p.IfNoneMatch, rec.ETag)
		}
	}
	return nil
}

// etagMatches compares entity tags, tolerating a client that dropped the
// quotes or the weak prefix.
func etagMatches(header, etag string) bool {
	norm := func(s string) string { return strings.Trim(strings.TrimPrefix(strings.TrimSpace(s), "W/"), `"`) }
	for _, h := range strings.Split(header, ",") {
		if norm(h) == norm(etag) {
			return true
		}
	}
	return false
}
