package emulator

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strconv"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
	"github.com/fleetops/terraform-provider-fleet/internal/engine/rollout"
)

// fleets/updateStrategies: templates of a run's strategy. PUT and DELETE
// are long-running operations (final state via azure-async-operation) that
// finish at once.

const (
	typeUpdateStrategies = providerNS + "/fleets/updateStrategies"
	typeUpdateRuns       = providerNS + "/fleets/updateRuns"
	typeGates            = providerNS + "/fleets/gates"
)

func (s *Server) registerUpdateRoutes() {
	s.registerChild(&childKind{
		typ: typeUpdateStrategies, segment: "updateStrategies", param: "strategyName", label: "update strategy",
		view: viewOf(s.strategyView), decode: decodeStrategy, build: buildStrategy,
	})
	s.registerUpdateRunRoutes()
	s.registerGateRoutes()
}

// childNamePattern is the name pattern of runs and strategies (1–50 characters).
var childNamePattern = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

func checkChildName(kind, name string) error {
	if len(name) > 50 || !childNamePattern.MatchString(name) {
		return armErrorf(http.StatusBadRequest, "InvalidResourceName",
			"The %s name '%s' is invalid: use 1 to 50 lower-case letters, digits and '-', starting and ending with a letter or digit.", kind, name)
	}
	return nil
}

func notFound(kind, fleet, name, rg string) error {
	return armErrorf(http.StatusNotFound, "ResourceNotFound",
		"The Resource 'Microsoft.ContainerService/fleets/%s/%s/%s' under resource group '%s' was not found. For more details please go to https://aka.ms/ARMResourceNotFoundFix",
		fleet, kind, name, rg)
}

// decodeBody reads a JSON request body, rejecting fields the model lacks.
func decodeBody(r *http.Request, v any) error {
	b, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		return armErrorf(http.StatusBadRequest, "InvalidRequestContent", "The request content could not be read: %v", err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return armErrorf(http.StatusBadRequest, "InvalidRequestContent", "The request content was invalid and could not be deserialized: %v", err)
	}
	return nil
}

// systemData is ARM's systemData of a record: the emulator's client created it.
func (s *Server) systemData(rec *record) *fleetapi.SystemData {
	created, modified := rec.Created.UTC(), rec.Modified.UTC()
	return &fleetapi.SystemData{
		CreatedBy: s.cfg.ClientID, CreatedByType: "Application", CreatedAt: &created,
		LastModifiedBy: s.cfg.ClientID, LastModifiedByType: "Application", LastModifiedAt: &modified,
	}
}

func (s *Server) strategyView(rec *record) fleetapi.FleetUpdateStrategy {
	v, _ := rec.Value.(fleetapi.FleetUpdateStrategy)
	v.ETag, v.SystemData = rec.ETag, s.systemData(rec)
	return v
}

// finishedOperation registers a long-running operation that is already
// done (the emulator's writes take no simulated time). The caller holds w.mu.
func (s *Server) finishedOperation(resourceID string, result func() any) *operation {
	now := s.world.clock.Now()
	op := s.world.beginOperation(&operation{
		Subscription: s.cfg.File.Fleet.SubscriptionID, Location: s.cfg.File.Fleet.Location, ResourceID: resourceID, result: result,
	}, now)
	s.world.finishOperation(op, nil, now)
	return op
}

// writeResource answers a read with the resource's ETag header.
func writeResource(w http.ResponseWriter, etag string, b []byte) {
	w.Header().Set("ETag", etag)
	writeRawJSON(w, http.StatusOK, b)
}

// strategyWrite is a strategy's PUT body and whether it came at the
// preview api-version.
type strategyWrite struct {
	body    fleetapi.FleetUpdateStrategy
	preview bool
}

// decodeStrategy reads a strategy's PUT body and checks its stages by the
// rules of the request's api-version.
func decodeStrategy(r *http.Request) (any, error) {
	var body fleetapi.FleetUpdateStrategy
	if err := decodeBody(r, &body); err != nil {
		return nil, err
	}
	if body.Properties == nil {
		return nil, armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.strategy is required.")
	}
	if err := rollout.ValidateStrategy(strategyFromAPI(&body.Properties.Strategy, isPreview(r))); err != nil {
		return nil, armErrorf(http.StatusBadRequest, "InvalidParameter", "properties.%v", err)
	}
	return strategyWrite{body: body, preview: isPreview(r)}, nil
}

// buildStrategy stores a strategy's writable part; a stable write keeps the
// preview-only fields of the strategy it replaces (apiversions.go). Deleting
// a strategy leaves the runs made from it alone: they keep the copy they took.
func buildStrategy(c childWrite) (any, bool, error) {
	sw, _ := c.body.(strategyWrite)
	strategy := sw.body.Properties.Strategy
	if c.old != nil && !sw.preview {
		old, _ := c.old.Value.(fleetapi.FleetUpdateStrategy)
		if old.Properties != nil {
			keepPreviewFields(&strategy, &old.Properties.Strategy)
		}
	}
	return fleetapi.FleetUpdateStrategy{
		Resource:   fleetapi.Resource{ID: c.id, Name: c.name, Type: typeUpdateStrategies},
		Properties: &fleetapi.FleetUpdateStrategyProperties{ProvisioningState: "Succeeded", Strategy: strategy},
	}, false, nil
}

// pageOf answers a list: all items, or pages of $top with a nextLink that
// carries $skipToken.
func pageOf[T any](r *http.Request, items []T) (listResult[T], error) {
	q := r.URL.Query()
	top, skip := 0, 0
	if v := q.Get("$top"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return listResult[T]{}, armErrorf(http.StatusBadRequest, "InvalidParameter", "$top '%s' must be a positive integer.", v)
		}
		top = n
	}
	if v := q.Get("$skipToken"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > len(items) {
			return listResult[T]{}, armErrorf(http.StatusBadRequest, "InvalidParameter", "$skipToken '%s' is not a token this API issued.", v)
		}
		skip = n
	}
	out := listResult[T]{Value: []T{}}
	end := len(items)
	if top > 0 && skip+top < end {
		end = skip + top
		next := url.Values{}
		for k, v := range q {
			next[k] = v
		}
		next.Set("$skipToken", strconv.Itoa(end))
		out.NextLink = baseURL(r) + r.URL.Path + "?" + next.Encode()
	}
	out.Value = append(out.Value, items[skip:end]...)
	return out, nil
}

// strategyFromAPI is the rules' view of a strategy; nil stays nil (members
// one by one). preview: the preview api-version's rules apply (a request at
// that version, or a strategy that holds its fields).
func strategyFromAPI(s *fleetapi.UpdateRunStrategy, preview bool) *rollout.Strategy {
	if s == nil {
		return nil
	}
	gates := func(gs []fleetapi.GateConfiguration) []rollout.Gate {
		var out []rollout.Gate
		for _, g := range gs {
			rg := rollout.Gate{DisplayName: g.DisplayName, Type: rollout.GateType(g.Type)}
			if c := g.ScheduledStartConfiguration; c != nil {
				rg.ScheduledStart = &rollout.ScheduledStartConfig{StartDay: string(c.StartDay), StartTime: c.StartTime, UTCOffset: c.UTCOffset}
			}
			out = append(out, rg)
		}
		return out
	}
	selector := func(ms *fleetapi.MemberSelector) *rollout.MemberSelector {
		if ms == nil {
			return nil
		}
		return &rollout.MemberSelector{ByLabel: ms.ByLabel}
	}
	out := &rollout.Strategy{API: rollout.StableAPI}
	if preview || hasPreviewFields(s) {
		out.API = rollout.PreviewAPI
	}
	for _, st := range s.Stages {
		rs := rollout.Stage{
			Name: st.Name, AfterStageWaitInSeconds: st.AfterStageWaitInSeconds, MaxConcurrency: st.MaxConcurrency,
			MaxAllowedFailures: st.MaxAllowedFailures, MemberSelector: selector(st.MemberSelector),
			BeforeGates: gates(st.BeforeGates), AfterGates: gates(st.AfterGates),
		}
		for _, g := range st.Groups {
			rs.Groups = append(rs.Groups, rollout.Group{
				Name: g.Name, MaxConcurrency: g.MaxConcurrency, MaxAllowedFailures: g.MaxAllowedFailures, MemberSelector: selector(g.MemberSelector),
				BeforeGates: gates(g.BeforeGates), AfterGates: gates(g.AfterGates),
			})
		}
		out.Stages = append(out.Stages, rs)
	}
	return out
}

// sameJSON compares two values as the API would show them.
func sameJSON(a, b any) bool {
	ja, err1 := json.Marshal(a)
	jb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(ja, jb)
}
