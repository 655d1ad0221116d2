package localfleet

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
)

// The admin API changes a running local fleet from another process (the fleet runs in a child of
// the tests): plain HTTP on loopback, unauthenticated like the emulator's /_emulator/ endpoints,
// its address in the env file as LOCALFLEET_ADMIN_URL.
//
//	GET   /_localfleet/members/{name}   the member's current description (fleetfile.Member JSON)
//	PATCH /_localfleet/members/{name}   a JSON merge patch (RFC 7396) of that description, e.g.
//	                                    {"healthy": false} or {"labels": {"env": null}}; the member
//	                                    agent reports the result to the hub at once (UpdateMember)
//	POST  /_localfleet/apiservers/{server}/down   kill a kube-apiserver ("hub", or "member-<name>" for a
//	                                    member with Karpenter): clients get connection refused
//	POST  /_localfleet/apiservers/{server}/up     run it again on the same port, certificates and etcd;
//	                                    answers once it is ready
const (
	adminPrefix = "/_localfleet/"
	// EnvAdminURL names the env-file variable holding the admin API's base address.
	EnvAdminURL = "LOCALFLEET_ADMIN_URL"
)

// adminServer serves the admin API.
type adminServer struct {
	srv *http.Server
	url string
}

// startAdmin serves the admin API on a loopback port.
func (f *Fleet) startAdmin() (*adminServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("admin API: %w", err)
	}
	a := &adminServer{
		srv: &http.Server{Handler: f.AdminHandler(), ReadHeaderTimeout: 10 * time.Second},
		url: "http://" + ln.Addr().String(),
	}
	go func() { _ = a.srv.Serve(ln) }()
	return a, nil
}

func (a *adminServer) close() {
	if a != nil {
		_ = a.srv.Close()
	}
}

// AdminHandler serves the admin API under /_localfleet/.
func (f *Fleet) AdminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+adminPrefix+"members/{name}", func(w http.ResponseWriter, r *http.Request) {
		m, ok := f.Member(r.PathValue("name"))
		if !ok {
			http.Error(w, fmt.Sprintf("no member %q", r.PathValue("name")), http.StatusNotFound)
			return
		}
		writeJSON(w, m)
	})
	mux.HandleFunc("PATCH "+adminPrefix+"members/{name}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("name")
		current, ok := f.Member(name)
		if !ok {
			http.Error(w, fmt.Sprintf("no member %q", name), http.StatusNotFound)
			return
		}
		patch, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		updated, err := mergeMember(current, patch)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if updated.Name != name {
			http.Error(w, "the member's name cannot change", http.StatusBadRequest)
			return
		}
		if err := f.UpdateMember(r.Context(), updated); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, updated)
	})
	mux.HandleFunc("POST "+adminPrefix+"apiservers/{server}/{action}", func(w http.ResponseWriter, r *http.Request) {
		srv := f.hub
		if name := r.PathValue("server"); name != "hub" {
			srv = f.members[strings.TrimPrefix(name, memberAPIPrefix)]
		}
		if srv == nil {
			http.Error(w, fmt.Sprintf("no kube-apiserver %q", r.PathValue("server")), http.StatusNotFound)
			return
		}
		var err error
		switch r.PathValue("action") {
		case "down":
			err = srv.down()
		case "up":
			err = srv.up(r.Context())
		default:
			http.Error(w, "the action is down or up", http.StatusNotFound)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// mergeMember applies a JSON merge patch to a member's description.
func mergeMember(m fleetfile.Member, patch []byte) (fleetfile.Member, error) {
	var doc, p any
	b, err := json.Marshal(m)
	if err != nil {
		return m, err
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return m, err
	}
	if err := json.Unmarshal(patch, &p); err != nil {
		return m, fmt.Errorf("the patch is not JSON: %w", err)
	}
	merged, err := json.Marshal(mergePatch(doc, p))
	if err != nil {
		return m, err
	}
	var out fleetfile.Member
	dec := json.NewDecoder(bytes.NewReader(merged))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return m, fmt.Errorf("the patched member is invalid: %w", err)
	}
	return out, nil
}

// mergePatch is RFC 7396: objects merge key by key, null deletes, anything else replaces.
func mergePatch(doc, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	d, ok := doc.(map[string]any)
	if !ok {
		d = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(d, k)
			continue
		}
		d[k] = mergePatch(d[k], v)
	}
	return d
}

// AdminMember reads a member's current description from a running fleet's admin API (baseURL is
// its LOCALFLEET_ADMIN_URL).
func AdminMember(ctx context.Context, baseURL, name string) (fleetfile.Member, error) {
	var m fleetfile.Member
	err := adminDo(ctx, http.MethodGet, baseURL, name, nil, &m)
	return m, err
}

// AdminPatchMember applies a JSON merge patch to a member of a running fleet and returns the
// member as the fleet now describes it; the hub has the change when it returns.
func AdminPatchMember(ctx context.Context, baseURL, name string, patch any) (fleetfile.Member, error) {
	b, err := json.Marshal(patch)
	if err != nil {
		return fleetfile.Member{}, err
	}
	var m fleetfile.Member
	err = adminDo(ctx, http.MethodPatch, baseURL, name, b, &m)
	return m, err
}

func adminDo(ctx context.Context, method, baseURL, name string, body []byte, out any) error {
	if baseURL == "" {
		return errors.New("no admin API address: is " + EnvAdminURL + " set?")
	}
	url := strings.TrimSuffix(baseURL, "/") + adminPrefix + "members/" + name
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/merge-patch+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: %s: %s", method, url, resp.Status, strings.TrimSpace(string(b)))
	}
	return json.Unmarshal(b, out)
}
