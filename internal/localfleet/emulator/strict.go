package emulator

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi/openapi"
)

// bodyChecks counts the request bodies checked against the official
// document and those refused (GET /_emulator/bodychecks).
type bodyChecks struct{ checked, refused atomic.Int64 }

// BodyChecks is what GET /_emulator/bodychecks answers.
type BodyChecks struct {
	Checked int64 `json:"checked"`
	Refused int64 `json:"refused"`
}

// maxBody bounds a request body as ARM does (4 MB).
const maxBody = 4 << 20

// checkBody refuses, as ARM refuses, a request body of an operation whose
// body the request's api-version's fleets.json describes and that the body breaks (400
// InvalidRequestContent with each property path); the handler then reads
// the body as sent.
func (s *Server) checkBody(r *http.Request, rte *route) error {
	// Each request is held to the document of its own api-version: a
	// stable body with a preview-only property is refused as unknown, as ARM
	// refuses it; other api-versions (AKS's) are not the Fleet API's.
	v := r.URL.Query().Get("api-version")
	if v != openapi.APIVersion && v != openapi.PreviewAPIVersion {
		return nil
	}
	spec, err := openapi.ForVersion(v)
	if err != nil {
		return err
	}
	if !spec.HasBody(r.Method, rte.pattern) {
		return nil
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return armErrorf(http.StatusBadRequest, "InvalidRequestContent", "The request body could not be read: %v", err)
	}
	if len(body) > maxBody {
		return armErrorf(http.StatusRequestEntityTooLarge, "RequestEntityTooLarge", "The request body is larger than %d bytes.", maxBody)
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	s.bodies.checked.Add(1)
	if vs := spec.CheckBody(r.Method, rte.pattern, body); len(vs) > 0 {
		s.bodies.refused.Add(1)
		status, code, message, target := openapi.Error(vs)
		e := armErrorf(status, code, "%s", message)
		e.target = target
		return e
	}
	return nil
}

func (s *Server) serveBodyChecksAdmin(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		writeARMError(w, armErrorf(http.StatusMethodNotAllowed, "MethodNotAllowed", "%s", fmt.Sprintf("GET only, not %s", r.Method)))
		return
	}
	writeJSON(w, http.StatusOK, BodyChecks{Checked: s.bodies.checked.Load(), Refused: s.bodies.refused.Load()})
}
