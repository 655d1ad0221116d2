package emulator

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// FaultRule makes the next Count requests that match Method and Path fail:
// with an ARM error of status Status (429 and 503 with Retry-After when
// RetryAfterSeconds is set), with Reset by dropping the connection without
// an answer (a TCP reset over HTTP/1.1, a stream reset over HTTP/2), or with
// FailOperation by accepting the request as a long-running operation that
// then fails (the request itself is not carried out).
// Rules apply to every path except the emulator's own /_emulator/ endpoints,
// token requests included; the first active matching rule wins.
type FaultRule struct {
	// Method is an HTTP method; empty matches any.
	Method string `json:"method,omitempty"`
	// Path is a regular expression matched against the URL path (not the
	// query), e.g. "/managedClusters/[^/]+$"; empty matches any.
	Path string `json:"path,omitempty"`
	// Count is how many requests the rule fails; 0 means 1.
	Count int `json:"count,omitempty"`
	// Status is the HTTP status to answer (>= 400), unless Reset.
	Status int `json:"status,omitempty"`
	// RetryAfterSeconds, when positive, is sent as Retry-After.
	RetryAfterSeconds int `json:"retryAfterSeconds,omitempty"`
	// Code and Message fill the ARM error; defaults suit the status.
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	// Reset drops the connection instead of answering.
	Reset bool `json:"reset,omitempty"`
	// FailOperation answers 202 (201 to a PUT) with Azure-AsyncOperation and
	// Location of an operation that ends Failed with Code and Message.
	FailOperation bool `json:"failOperation,omitempty"`
}

// FaultStatus is an injected rule and how much of it is left.
type FaultStatus struct {
	ID        string    `json:"id"`
	Rule      FaultRule `json:"rule"`
	Remaining int       `json:"remaining"`
	Hits      int       `json:"hits"`
	// HitTimes are the real times the hits arrived, in order: a test can
	// check that a client waited as long as Retry-After asked.
	HitTimes []time.Time `json:"hitTimes,omitempty"`
}

type faultRule struct {
	FaultStatus
	re *regexp.Regexp
}

type faults struct {
	mu    sync.Mutex
	rules []*faultRule
	seq   int
}

func (f *faults) add(rule FaultRule) (FaultStatus, error) {
	kinds := 0
	for _, set := range []bool{rule.Status != 0, rule.Reset, rule.FailOperation} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		return FaultStatus{}, errors.New("set exactly one of status, reset and failOperation")
	}
	if rule.Status != 0 && (rule.Status < 400 || rule.Status > 599) {
		return FaultStatus{}, fmt.Errorf("status %d: want an error status (400-599)", rule.Status)
	}
	if rule.Count < 0 || rule.RetryAfterSeconds < 0 {
		return FaultStatus{}, errors.New("count and retryAfterSeconds must not be negative")
	}
	if rule.Count == 0 {
		rule.Count = 1
	}
	re, err := regexp.Compile(rule.Path)
	if err != nil {
		return FaultStatus{}, fmt.Errorf("path: %w", err)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seq++
	r := &faultRule{FaultStatus: FaultStatus{ID: strconv.Itoa(f.seq), Rule: rule, Remaining: rule.Count}, re: re}
	f.rules = append(f.rules, r)
	return r.FaultStatus, nil
}

// take consumes one request of the first active rule matching the request.
func (f *faults) take(method, path string) (FaultRule, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, r := range f.rules {
		if r.Remaining > 0 && (r.Rule.Method == "" || r.Rule.Method == method) && r.re.MatchString(path) {
			r.Remaining--
			r.Hits++
			r.HitTimes = append(r.HitTimes, time.Now())
			return r.Rule, true
		}
	}
	return FaultRule{}, false
}

func (f *faults) list() []FaultStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]FaultStatus, 0, len(f.rules))
	for _, r := range f.rules {
		st := r.FaultStatus
		st.HitTimes = append([]time.Time(nil), r.HitTimes...)
		out = append(out, st)
	}
	return out
}

func (f *faults) clear() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rules = nil
}

// InjectFault adds a fault rule and returns its ID.
func (s *Server) InjectFault(rule FaultRule) (string, error) {
	st, err := s.faults.add(rule)
	return st.ID, err
}

// Faults lists the injected rules with their remaining counts and hits.
func (s *Server) Faults() []FaultStatus { return s.faults.list() }

// ClearFaults removes every fault rule.
func (s *Server) ClearFaults() { s.faults.clear() }

// applyFault answers a request the way rule says.
func (s *Server) applyFault(w http.ResponseWriter, r *http.Request, rule FaultRule) {
	if rule.Reset {
		resetConnection(w)
		return
	}
	s.armHeaders(w)
	if rule.FailOperation {
		s.failOperation(w, r, rule)
		return
	}
	if rule.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(rule.RetryAfterSeconds))
	}
	if s.meter != nil {
		// An injected 429 is a throttled read: ARM reports nothing left.
		remaining := 0
		if rule.Status != http.StatusTooManyRequests {
			remaining = s.meter.remaining(s.tokens.principal(r))
		}
		w.Header().Set(ReadRemainingHeader, strconv.Itoa(remaining))
	}
	code, msg := rule.Code, rule.Message
	if code == "" {
		code = defaultFaultCode(rule.Status)
	}
	if msg == "" {
		msg = fmt.Sprintf("Injected fault: %s %s answers %d.", r.Method, r.URL.Path, rule.Status)
	}
	writeARMError(w, armErrorf(rule.Status, code, "%s", msg))
}

// failOperation accepts r as a long-running operation that has failed
// already: the poller sees the failure at its first poll.
func (s *Server) failOperation(w http.ResponseWriter, r *http.Request, rule FaultRule) {
	errd := &fleetapi.ErrorDetail{Code: rule.Code, Message: rule.Message}
	if errd.Code == "" {
		errd.Code = "InternalOperationError"
	}
	if errd.Message == "" {
		errd.Message = fmt.Sprintf("Injected fault: the operation of %s %s failed.", r.Method, r.URL.Path)
	}
	s.world.mu.Lock()
	now := s.world.clock.Now()
	op := s.world.beginOperation(&operation{Subscription: s.cfg.File.Fleet.SubscriptionID, Location: s.cfg.File.Fleet.Location, ResourceID: r.URL.Path}, now)
	s.world.finishOperation(op, errd, now)
	s.world.mu.Unlock()
	status := http.StatusAccepted
	if r.Method == http.MethodPut {
		status = http.StatusCreated
	}
	writeLROAccepted(w, r, op, status, nil)
}

func defaultFaultCode(status int) string {
	switch status {
	case http.StatusTooManyRequests:
		return "TooManyRequests"
	case http.StatusInternalServerError:
		return "InternalServerError"
	case http.StatusServiceUnavailable:
		return "ServiceUnavailable"
	case http.StatusBadGateway:
		return "BadGateway"
	case http.StatusGatewayTimeout:
		return "GatewayTimeout"
	}
	return http.StatusText(status)
}

// resetConnection drops the request's connection with no answer: over
// HTTP/1.1 it closes the TCP connection with SO_LINGER 0 (the peer sees
// ECONNRESET); over HTTP/2, where a handler cannot hijack, it aborts the
// handler, which resets the stream.
func resetConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	raw := conn
	if nc, ok := conn.(interface{ NetConn() net.Conn }); ok {
		raw = nc.NetConn()
	}
	if tcp, ok := raw.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = raw.Close()
}

// serveFaultsAdmin serves /_emulator/faults: POST a FaultRule (JSON) to add
// it, GET to list, DELETE to clear.
func (s *Server) serveFaultsAdmin(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		var rule FaultRule
		dec := json.NewDecoder(io.LimitReader(r.Body, 1<<20))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rule); err != nil {
			writeARMError(w, armErrorf(http.StatusBadRequest, "InvalidRequestContent", "fault rule: %v", err))
			return
		}
		st, err := s.faults.add(rule)
		if err != nil {
			writeARMError(w, armErrorf(http.StatusBadRequest, "InvalidRequestContent", "fault rule: %v", err))
			return
		}
		writeJSON(w, http.StatusCreated, st)
	case http.MethodGet:
		writeJSON(w, http.StatusOK, listResult[FaultStatus]{Value: s.faults.list()})
	case http.MethodDelete:
		s.faults.clear()
		w.WriteHeader(http.StatusNoContent)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		writeARMError(w, armErrorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "/_emulator/faults supports GET, POST and DELETE"))
	}
}
