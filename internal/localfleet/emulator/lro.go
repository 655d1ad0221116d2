package emulator

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// Long-running operations, as the Fleet RP runs its PUTs, PATCHes and
// actions: the first answer carries Azure-AsyncOperation (an operation
// status resource, polled until a terminal status) and Location (the
// operation result). azcore's runtime.NewPoller follows either.

// Operation statuses (common-types v5 ResourceProvisioningState plus InProgress).
const (
	opInProgress = "InProgress"
	opSucceeded  = "Succeeded"
	opFailed     = "Failed"
	opCanceled   = "Canceled"
)

// operation is one long-running operation. Its state changes either by
// finishOperation (an executor calls it under the world lock) or, when
// progress is set, by asking progress at the simulated time of each poll.
type operation struct {
	ID           string
	Subscription string
	Location     string
	ResourceID   string
	Status       string
	Start, End   time.Time
	Error        *fleetapi.ErrorDetail
	// progress, when set, reports the status at now and the error of a
	// failed operation.
	progress func(now time.Time) (status string, err *fleetapi.ErrorDetail)
	// result, when set, is the body of the operation result once it
	// succeeded (e.g. the updated resource); nil answers 204.
	result func() any
	// retryAfter is the Retry-After (seconds) of its answers while it runs;
	// 0 sends none.
	retryAfter int
}

// operationStatus is common-types v5 OperationStatusResult.
type operationStatus struct {
	ID              string                `json:"id,omitempty"`
	ResourceID      string                `json:"resourceId,omitempty"`
	Name            string                `json:"name,omitempty"`
	Status          string                `json:"status"`
	PercentComplete *float64              `json:"percentComplete,omitempty"`
	StartTime       *time.Time            `json:"startTime,omitempty"`
	EndTime         *time.Time            `json:"endTime,omitempty"`
	Error           *fleetapi.ErrorDetail `json:"error,omitempty"`
}

// beginOperation registers op as in progress at now. The caller holds w.mu.
func (w *world) beginOperation(op *operation, now time.Time) *operation {
	op.ID = newUUID()
	op.Status = opInProgress
	op.Start = now
	op.retryAfter = w.retryAfter
	w.ops[strings.ToLower(op.ID)] = op
	return op
}

// finishOperation ends an operation: with errd nil it succeeded. The caller
// holds w.mu.
func (w *world) finishOperation(op *operation, errd *fleetapi.ErrorDetail, now time.Time) {
	if op.Status != opInProgress {
		return
	}
	op.Status, op.Error, op.End = opSucceeded, nil, now
	if errd != nil {
		op.Status, op.Error = opFailed, errd
	}
}

// refreshOperation looks an operation up and advances it to now. The caller
// holds w.mu.
func (w *world) refreshOperation(id string, now time.Time) (*operation, bool) {
	op, ok := w.ops[strings.ToLower(id)]
	if !ok {
		return nil, false
	}
	if op.Status == opInProgress && op.progress != nil {
		if st, errd := op.progress(now); st != opInProgress {
			op.Status, op.Error, op.End = st, errd, now
		}
	}
	return op, true
}

func operationStatusPath(op *operation) string {
	return "/subscriptions/" + op.Subscription + "/providers/" + providerNS + "/locations/" + normalizeLocation(op.Location) + "/operations/" + op.ID
}

func operationResultPath(op *operation) string {
	return "/subscriptions/" + op.Subscription + "/providers/" + providerNS + "/locations/" + normalizeLocation(op.Location) + "/operationresults/" + op.ID
}

// DefaultRetryAfterSeconds is the Retry-After of the answers of a
// long-running operation unless Config.RetryAfterSeconds or the fleet
// file's fleetAPI.retryAfterSeconds says otherwise.
const DefaultRetryAfterSeconds = 1

// setRetryAfter sends an operation's Retry-After, if it has one.
func setRetryAfter(w http.ResponseWriter, op *operation) {
	if op.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(op.retryAfter))
	}
}

// writeLROAccepted answers the request that started op: status (201 for a
// PUT that creates, 200 for one that replaces, 202 for actions) with body
// (nil for none) and the headers a poller follows.
func writeLROAccepted(w http.ResponseWriter, r *http.Request, op *operation, status int, body any) {
	q := "?api-version=" + r.URL.Query().Get("api-version")
	w.Header().Set("Azure-AsyncOperation", baseURL(r)+operationStatusPath(op)+q)
	w.Header().Set("Location", baseURL(r)+operationResultPath(op)+q)
	setRetryAfter(w, op)
	if body == nil {
		w.WriteHeader(status)
		return
	}
	writeJSON(w, status, body)
}

func (s *Server) registerOperationRoutes() {
	base := "/subscriptions/{subscriptionId}/providers/Microsoft.ContainerService/locations/{location}"
	s.router.handle(http.MethodGet, base+"/operations/{operationId}", nil, s.getOperationStatus)
	s.router.handle(http.MethodGet, base+"/operationresults/{operationId}", nil, s.getOperationResult)
}

func (s *Server) lookupOperation(p params) (*operation, error) {
	if err := s.checkSubscription(p); err != nil {
		return nil, err
	}
	op, ok := s.world.refreshOperation(p["operationId"], s.world.clock.Now())
	if !ok || normalizeLocation(op.Location) != normalizeLocation(p["location"]) {
		return nil, armErrorf(http.StatusNotFound, "NotFound", "Operation '%s' was not found in location '%s'.", p["operationId"], p["location"])
	}
	return op, nil
}

func (s *Server) getOperationStatus(w http.ResponseWriter, r *http.Request, p params) error {
	inProgress := false
	var op *operation
	b, err := s.world.render(func() (any, error) {
		var err error
		if op, err = s.lookupOperation(p); err != nil {
			return nil, err
		}
		st := operationStatus{
			ID: operationStatusPath(op), ResourceID: op.ResourceID, Name: op.ID,
			Status: op.Status, StartTime: timePtr(op.Start), Error: op.Error,
		}
		inProgress = op.Status == opInProgress
		if !inProgress {
			st.EndTime = timePtr(op.End)
			full := 100.0
			st.PercentComplete = &full
		}
		return st, nil
	})
	if err != nil {
		return err
	}
	if inProgress {
		setRetryAfter(w, op)
	}
	writeRawJSON(w, http.StatusOK, b)
	return nil
}

// getOperationResult answers 202 while the operation runs, the operation's
// error once it failed, and its result (or 204) once it succeeded.
func (s *Server) getOperationResult(w http.ResponseWriter, r *http.Request, p params) error {
	var status string
	var errd *fleetapi.ErrorDetail
	var op *operation
	b, err := s.world.render(func() (any, error) {
		var err error
		if op, err = s.lookupOperation(p); err != nil {
			return nil, err
		}
		status, errd = op.Status, op.Error
		if status == opSucceeded && op.result != nil {
			return op.result(), nil
		}
		return nil, nil
	})
	switch {
	case err != nil:
		return err
	case status == opInProgress:
		w.Header().Set("Location", baseURL(r)+r.URL.RequestURI())
		setRetryAfter(w, op)
		w.WriteHeader(http.StatusAccepted)
	case status != opSucceeded:
		if errd == nil {
			errd = &fleetapi.ErrorDetail{Code: status, Message: "The operation ended " + status + "."}
		}
		writeJSON(w, http.StatusBadRequest, fleetapi.ErrorResponse{Error: errd})
	case string(b) == "null":
		w.WriteHeader(http.StatusNoContent)
	default:
		writeRawJSON(w, http.StatusOK, b)
	}
	return nil
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}
