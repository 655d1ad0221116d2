package emulator

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Azure Resource Graph's query API, only as far as the bench needs it to
// weigh Resource Graph against ARM's managed-cluster list (issue 24): the
// managed clusters of the requested subscriptions, paged by $skipToken, under
// ARG's own per-user quota. The provider does not call it (README "Bulk reads").
//
// "Resources - Resources" (REST, Microsoft.ResourceGraph 2024-04-01): POST
// /providers/Microsoft.ResourceGraph/resources with {subscriptions, query,
// options: {$top, $skipToken}}; the answer {totalRecords, count,
// resultTruncated, $skipToken, data}. "Guidance for throttled requests in
// Azure Resource Graph" (learn.microsoft.com/azure/governance/resource-graph/
// concepts/guidance-for-throttled-requests): "every 5-second window, a user
// can send at most 15 queries", reported in x-ms-user-quota-remaining and
// x-ms-user-quota-resets-after (hh:mm:ss), 429 beyond; up to 1,000 rows a page.
// The emulator does not parse KQL: a query must name the managed clusters'
// type, and the rows are the clusters as ARM's GET returns them.

const (
	graphPath             = "/providers/Microsoft.ResourceGraph/resources"
	GraphQuotaRemaining   = "x-ms-user-quota-remaining"
	GraphQuotaResetsAfter = "x-ms-user-quota-resets-after"
	// GraphQuotaQueries per GraphQuotaWindow per user, and GraphMaxPage rows per page (ARG's defaults).
	GraphQuotaQueries = 15
	GraphQuotaWindow  = 5 * time.Second
	GraphMaxPage      = 1000
)

// graphQuota is ARG's per-user window: a user's first query opens a window
// of GraphQuotaWindow in which GraphQuotaQueries are answered.
type graphQuota struct {
	mu        sync.Mutex
	now       func() time.Time
	windows   map[string]*graphWindow
	queries   int
	throttled int
	rows      int
}

type graphWindow struct {
	start time.Time
	used  int
}

// take spends a query of principal's; remaining and resetsAfter are the headers' values.
func (q *graphQuota) take(principal string) (remaining int, resetsAfter time.Duration, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	t := q.now()
	w := q.windows[principal]
	if w == nil || t.Sub(w.start) >= GraphQuotaWindow {
		w = &graphWindow{start: t}
		q.windows[principal] = w
	}
	resetsAfter = w.start.Add(GraphQuotaWindow).Sub(t)
	if w.used >= GraphQuotaQueries {
		q.throttled++
		return 0, resetsAfter, false
	}
	w.used++
	q.queries++
	return GraphQuotaQueries - w.used, resetsAfter, true
}

// GraphStats is what GET /_emulator/metering reports of Resource Graph.
type GraphStats struct {
	Queries   int `json:"queries"`
	Throttled int `json:"throttled"`
	Rows      int `json:"rows"`
}

func (q *graphQuota) stats() GraphStats {
	q.mu.Lock()
	defer q.mu.Unlock()
	return GraphStats{Queries: q.queries, Throttled: q.throttled, Rows: q.rows}
}

func (q *graphQuota) reset() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.windows = map[string]*graphWindow{}
	q.queries, q.throttled, q.rows = 0, 0, 0
}

// hhmmss is ARG's resets-after format.
func hhmmss(d time.Duration) string {
	s := int(math.Ceil(d.Seconds()))
	return fmt.Sprintf("%02d:%02d:%02d", s/3600, s/60%60, s%60)
}

type graphRequest struct {
	Subscriptions []string `json:"subscriptions"`
	Query         string   `json:"query"`
	Options       struct {
		Top       *int   `json:"$top"`
		Skip      *int   `json:"$skip"`
		SkipToken string `json:"$skipToken"`
	} `json:"options"`
}

func (s *Server) registerResourceGraphRoutes() {
	s.router.handle(http.MethodPost, graphPath, nil, s.queryResourceGraph)
}

func (s *Server) queryResourceGraph(w http.ResponseWriter, r *http.Request, _ params) error {
	remaining, resetsAfter, ok := s.graph.take(s.tokens.principal(r))
	w.Header().Set(GraphQuotaRemaining, strconv.Itoa(remaining))
	w.Header().Set(GraphQuotaResetsAfter, hhmmss(resetsAfter))
	if !ok {
		return armErrorf(http.StatusTooManyRequests, "RateLimiting",
			"Please provide below info when asking for support: the user's Resource Graph quota of %d queries per %s is spent; it resets after %s.",
			GraphQuotaQueries, GraphQuotaWindow, hhmmss(resetsAfter))
	}
	var req graphRequest
	if err := json.NewDecoder(io.LimitReader(r.Body, maxBody)).Decode(&req); err != nil {
		return armErrorf(http.StatusBadRequest, "BadRequest", "The request body is not a Resource Graph query: %v", err)
	}
	if !strings.Contains(strings.ToLower(req.Query), typeManagedClustersLower) {
		return armErrorf(http.StatusBadRequest, "BadRequest", "The local emulator answers only queries of the resources table's %s rows, not %q.", typeManagedClustersLower, req.Query)
	}
	top := GraphMaxPage
	if req.Options.Top != nil {
		if *req.Options.Top < 1 || *req.Options.Top > GraphMaxPage {
			return armErrorf(http.StatusBadRequest, "BadRequest", "$top must be between 1 and %d, not %d.", GraphMaxPage, *req.Options.Top)
		}
		top = *req.Options.Top
	}
	offset := 0
	if req.Options.SkipToken != "" {
		b, err := base64.RawURLEncoding.DecodeString(req.Options.SkipToken)
		if err == nil {
			offset, err = strconv.Atoi(string(b))
		}
		if err != nil || offset < 0 {
			return armErrorf(http.StatusBadRequest, "BadRequest", "The $skipToken %q is not one this service issued.", req.Options.SkipToken)
		}
	}
	sub := s.cfg.File.Fleet.SubscriptionID
	asked := false
	for _, x := range req.Subscriptions {
		asked = asked || strings.EqualFold(x, sub)
	}
	b, err := s.world.render(func() (any, error) {
		rows := []map[string]any{}
		total := 0
		if asked {
			total = len(s.world.order)
			for i := offset; i < total && i < offset+top; i++ {
				row, err := graphRow(s.clusterView(s.world.clusters[strings.ToLower(s.world.order[i])]), sub, s.cfg.File.Fleet.ResourceGroup)
				if err != nil {
					return nil, err
				}
				rows = append(rows, row)
			}
		}
		out := map[string]any{"totalRecords": total, "count": len(rows), "resultTruncated": "false", "data": rows}
		if offset+len(rows) < total {
			out["$skipToken"] = base64.RawURLEncoding.EncodeToString([]byte(strconv.Itoa(offset + len(rows))))
		}
		s.graph.mu.Lock()
		s.graph.rows += len(rows)
		s.graph.mu.Unlock()
		return out, nil
	})
	if err != nil {
		return err
	}
	writeRawJSON(w, http.StatusOK, b)
	return nil
}

const typeManagedClustersLower = "microsoft.containerservice/managedclusters"

// graphRow is a resources-table row: the ARM body with the type lower-cased
// and the row's subscriptionId and resourceGroup.
func graphRow(v any, sub, rg string) (map[string]any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	row := map[string]any{}
	if err := json.Unmarshal(b, &row); err != nil {
		return nil, err
	}
	row["type"] = typeManagedClustersLower
	row["subscriptionId"] = sub
	row["resourceGroup"] = strings.ToLower(rg)
	return row, nil
}
