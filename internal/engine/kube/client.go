package kube

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/httplog"
)

// Default client-side rate limits: a plan against a 1,000-member hub lists
// member clusters and placements in bursts; client-go's defaults (5 QPS, 10
// burst) would make it crawl.
const (
	DefaultQPS   = 50
	DefaultBurst = 100
)

// Client bundles the clients of one cluster, built once.
type Client struct {
	// Config is the cluster's client configuration (a copy the clients use).
	Config *rest.Config
	// Dynamic reaches any resource (KubeFleet's and Karpenter's CRDs).
	Dynamic dynamic.Interface
	// Kubernetes is the typed clientset (core, discovery, ...).
	Kubernetes kubernetes.Interface

	pdb pdbCache // PodDisruptionBudgets, read once (pdb.go)
}

// RequestTimeout bounds every request (the provider lists and polls, it
// never watches): an API server that takes connections but does not answer
// fails the plan with a diagnostic instead of hanging it.
var RequestTimeout = time.Minute

// NewClient builds the dynamic and typed clients of cfg. userAgent may be
// empty; zero QPS/Burst get DefaultQPS/DefaultBurst.
func NewClient(cfg *rest.Config, userAgent string) (*Client, error) {
	if cfg == nil {
		return nil, fmt.Errorf("no client configuration")
	}
	c := rest.CopyConfig(cfg)
	if c.QPS == 0 {
		c.QPS = DefaultQPS
	}
	if c.Burst == 0 {
		c.Burst = DefaultBurst
	}
	if c.Timeout == 0 {
		c.Timeout = RequestTimeout
	}
	if userAgent != "" {
		c.UserAgent = userAgent
	}
	// The request log sits innermost, so it sees the Authorization header
	// the outer layers set, and masks it.
	prev := c.WrapTransport
	c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		rt = httplog.Transport(rt)
		if prev != nil {
			rt = prev(rt)
		}
		return rt
	}
	dyn, err := dynamic.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("building the dynamic client: %w", err)
	}
	typed, err := kubernetes.NewForConfig(c)
	if err != nil {
		return nil, fmt.Errorf("building the Kubernetes client: %w", err)
	}
	return &Client{Config: c, Dynamic: dyn, Kubernetes: typed}, nil
}

// AKSServerID is the application ID of the AKS Microsoft Entra server, the
// audience of tokens for AKS-managed Entra clusters and fleet hubs.
const AKSServerID = "6dae42f8-4368-4678-94ff-3960e28e3630"

// KubeloginServerID reports whether cfg authenticates through Azure's
// kubelogin exec plugin (or the removed `azure` auth provider), as the
// kubeconfigs of AKS-managed Entra clusters and fleet hubs do, and returns
// the server application ID whose token it wants.
func KubeloginServerID(cfg *rest.Config) (string, bool) {
	if cfg == nil {
		return "", false
	}
	if e := cfg.ExecProvider; e != nil {
		base := strings.TrimSuffix(filepath.Base(e.Command), ".exe")
		if base != "kubelogin" {
			return "", false
		}
		for i, a := range e.Args {
			if a == "--server-id" && i+1 < len(e.Args) {
				return e.Args[i+1], true
			}
			if v, ok := strings.CutPrefix(a, "--server-id="); ok {
				return v, true
			}
		}
		return AKSServerID, true
	}
	if p := cfg.AuthProvider; p != nil && p.Name == "azure" {
		if id := p.Config["apiserver-id"]; id != "" {
			return id, true
		}
		return AKSServerID, true
	}
	return "", false
}

// TokenFunc returns a bearer token for a scope.
type TokenFunc func(ctx context.Context, scope string) (string, error)

// WithAzureToken returns a copy of cfg that authenticates with tokens for
// serverID from token instead of running kubelogin: the provider's own
// Azure credential then reaches the cluster, as `kubelogin convert-kubeconfig`
// with the same login would.
func WithAzureToken(cfg *rest.Config, serverID string, token TokenFunc) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.ExecProvider = nil
	c.AuthProvider = nil
	c.BearerToken = ""
	c.BearerTokenFile = ""
	scope := serverID + "/.default"
	prev := c.WrapTransport
	c.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if prev != nil {
			rt = prev(rt)
		}
		return &tokenRoundTripper{next: rt, scope: scope, token: token}
	}
	return c
}

type tokenRoundTripper struct {
	next  http.RoundTripper
	scope string
	token TokenFunc
}

func (t *tokenRoundTripper) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, err := t.token(req.Context(), t.scope)
	if err != nil {
		return nil, fmt.Errorf("getting an Azure token for the cluster: %w", err)
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return t.next.RoundTrip(r)
}
