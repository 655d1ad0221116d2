// Package localfleet runs a whole fleet on this machine (SPEC §6): a real
// hub (kube-apiserver + etcd + KubeFleet's CRDs + KubeFleet's real hub
// agent), simulated member agents, a kube-apiserver with Karpenter's CRDs for
// each member that asks for one, and the Fleet API emulator. Nothing in the
// provider knows it talks to a local fleet.
package localfleet

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/emulator"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/fleetfile"
	"github.com/fleetops/terraform-provider-fleet/internal/localfleet/simclock"
)

// Config says where everything is.
type Config struct {
	FleetFile string // the fleet description (SPEC §6)
	Dir       string // state: kubeconfigs, CA, env, logs, pids
	BinDir    string // hubagent, memberagent
	// AssetsDir holds kube-apiserver and etcd for envtest.
	AssetsDir string
	// FleetCRDs and KarpenterCRDs are the CRD folders of go.goms.io/fleet and
	// sigs.k8s.io/karpenter in the module cache.
	FleetCRDs     string
	KarpenterCRDs string
	// Heartbeat is the simulated member agents' period (default:
	// DefaultHeartbeat for the fleet's size).
	Heartbeat time.Duration
	// NoHubAgent runs no hub agent whatever the fleet file says (hub.agent).
	NoHubAgent bool
	Logf       func(format string, args ...any)
}

// Fleet is a running local fleet.
type Fleet struct {
	cfg     Config
	File    *fleetfile.File
	hub     *apiServer
	agent   *hubAgent
	members map[string]*apiServer
	agents  *memberAgents
	// real are KubeFleet's real member agents, one per member with its own kube-apiserver.
	real   []*realMemberAgent
	admin  *adminServer
	Fleet  *emulator.Server
	cancel context.CancelFunc
	done   chan struct{}
	// Env is what terraform and the tests need (written to <Dir>/env).
	Env map[string]string
}

// Start brings the whole fleet up; on error everything started is stopped.
func Start(ctx context.Context, cfg Config) (f *Fleet, err error) {
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	file, err := fleetfile.Load(cfg.FleetFile)
	if err != nil {
		return nil, err
	}
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = DefaultHeartbeat(len(file.Members))
	}
	if err := os.MkdirAll(cfg.Dir, 0o700); err != nil {
		return nil, err
	}
	f = &Fleet{cfg: cfg, File: file, members: map[string]*apiServer{}}
	defer func() {
		if err != nil {
			f.Stop()
			f = nil
		}
	}()
	runCtx, cancel := context.WithCancel(context.Background())
	f.cancel, f.done = cancel, make(chan struct{})

	t0 := time.Now()
	if f.hub, err = startAPIServer(cfg, "hub", []string{cfg.FleetCRDs}, HubScheme()); err != nil {
		return f, err
	}
	f.recordProcesses()
	cfg.Logf("hub kube-apiserver up in %s", time.Since(t0).Round(time.Millisecond))
	direct := !file.HubAgent() || cfg.NoHubAgent
	if direct {
		cfg.Logf("no hub agent: the member agents write the MemberClusters' status")
	} else {
		if f.agent, err = startHubAgent(cfg, f.hub, len(file.Members)); err != nil {
			return f, err
		}
		f.recordProcesses()
	}

	memberKubeconfigs := map[string][]byte{}
	for _, m := range file.Members {
		if m.Karpenter == nil {
			continue
		}
		t := time.Now()
		srv, err := startMemberAPI(ctx, cfg, m)
		if err != nil {
			return f, err
		}
		f.members[m.Name] = srv
		memberKubeconfigs[m.Name] = srv.kubeconfig
		f.recordProcesses()
		cfg.Logf("member %s kube-apiserver up in %s", m.Name, time.Since(t).Round(time.Millisecond))
	}

	f.agents = newMemberAgents(f.hub.client, file, cfg.Heartbeat, direct, cfg.Logf)
	t := time.Now()
	if err := f.agents.join(ctx); err != nil {
		return f, err
	}
	cfg.Logf("%d members joined the hub in %s; heartbeats every %s", len(file.Members), time.Since(t).Round(time.Millisecond), cfg.Heartbeat)
	if !direct { // without the hub agent nothing writes Works
		if err := f.startRealAgents(ctx, runCtx); err != nil {
			return f, err
		}
	}
	go func() {
		defer close(f.done)
		f.agents.run(runCtx)
	}()
	if f.admin, err = f.startAdmin(); err != nil {
		return f, err
	}

	namespaces, err := newNamespaceHub(f.hub, f.members, f.real)
	if err != nil {
		return f, err
	}
	tenant, clientID, secret := "00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000c", randomSecret()
	ids, err := newIdentities()
	if err != nil {
		return f, err
	}
	f.Fleet, err = emulator.New(emulator.Config{
		File:                   file,
		Clock:                  simclock.New(file.Clock.Start, file.Clock.Speed, time.Now),
		TenantID:               tenant,
		ClientID:               clientID,
		ClientSecret:           secret,
		FederatedClientID:      ids.federatedClientID,
		OIDCRequestToken:       ids.oidcRequestToken,
		ADOServiceConnectionID: ids.adoConnectionID,
		CertificateClientID:    ids.certificateClientID,
		ClientCertificate:      ids.certPEM,
		HubKubeconfig:          f.hub.kubeconfig,
		MemberKubeconfigs:      memberKubeconfigs,
		Members:                f.agents,
		Namespaces:             namespaces,
		Logf:                   cfg.Logf,
	})
	if err != nil {
		return f, err
	}
	if err := f.Fleet.Start(); err != nil {
		return f, err
	}
	if err := f.writeEnv(tenant, clientID, secret, ids); err != nil {
		return f, err
	}
	return f, nil
}

// DefaultHeartbeat is 30s, or longer for large fleets so the hub sees at
// most about 50 heartbeats a second, but at most 2m: the scheduler wants a
// heartbeat within 5 minutes (clustereligibilitychecker/checker.go).
func DefaultHeartbeat(members int) time.Duration {
	return min(2*time.Minute, max(30*time.Second, time.Duration(members)*time.Second/50))
}

func randomSecret() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// writeEnv writes <Dir>/env: with it sourced, an empty provider "fleet" {}
// reaches this fleet through the ARM_* variables (SPEC §6).
func (f *Fleet) writeEnv(tenant, clientID, secret string, ids *identities) error {
	dir, err := filepath.Abs(f.cfg.Dir)
	if err != nil {
		return err
	}
	caFile := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(caFile, f.Fleet.CACertPEM(), 0o600); err != nil {
		return err
	}
	// SSL_CERT_FILE replaces the system roots, so the bundle keeps them.
	bundle := append(systemRoots(), f.Fleet.CACertPEM()...)
	bundleFile := filepath.Join(dir, "ca-bundle.pem")
	if err := os.WriteFile(bundleFile, bundle, 0o600); err != nil {
		return err
	}
	host := strings.TrimPrefix(f.Fleet.URL(), "https://")
	f.Env = map[string]string{
		"ARM_SUBSCRIPTION_ID":       f.File.Fleet.SubscriptionID,
		"ARM_TENANT_ID":             tenant,
		"ARM_CLIENT_ID":             clientID,
		"ARM_CLIENT_SECRET":         secret,
		"ARM_METADATA_HOSTNAME":     host,
		"FLEET_RESOURCE_GROUP_NAME": f.File.Fleet.ResourceGroup,
		"FLEET_NAME":                f.File.Fleet.Name,
		"SSL_CERT_FILE":             bundleFile,
		// The provider reaches the hub through FLEET_HUB_CONFIG_PATH;
		// KUBE_CONFIG_PATH is for kubectl and the tests' own clients (the
		// provider ignores it).
		"FLEET_HUB_CONFIG_PATH": f.hub.kubeconfigPath(dir),
		"KUBE_CONFIG_PATH":      f.hub.kubeconfigPath(dir),
		"LOCALFLEET_URL":        f.Fleet.URL(),
		"LOCALFLEET_DIR":        dir,
		EnvAdminURL:             f.admin.url,
	}
	idEnv, err := ids.writeFiles(dir, f.Fleet.URL())
	if err != nil {
		return err
	}
	for k, v := range idEnv {
		f.Env[k] = v
	}
	keys := make([]string, 0, len(f.Env))
	for k := range f.Env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("# Written by localfleet: source it to reach the local fleet.\n")
	for _, k := range keys {
		fmt.Fprintf(&b, "export %s=%q\n", k, f.Env[k])
	}
	return os.WriteFile(filepath.Join(dir, "env"), []byte(b.String()), 0o600)
}

func systemRoots() []byte {
	for _, p := range []string{"/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"} {
		if b, err := os.ReadFile(p); err == nil {
			return append(b, '\n')
		}
	}
	return nil
}

// recordProcesses keeps <Dir>/pids.json current so fleet-down can stop
// everything even if this process dies without cleaning up.
func (f *Fleet) recordProcesses() {
	p := Processes{Supervisor: os.Getpid()}
	p.Children = childPIDs(os.Getpid(), "etcd", "kube-apiserver", "hubagent", "memberagent")
	if err := writeProcesses(f.cfg.Dir, p); err != nil {
		f.cfg.Logf("record processes: %v", err)
	}
}

// Stop ends everything this fleet started, newest first.
func (f *Fleet) Stop() {
	if f == nil {
		return
	}
	if f.cancel != nil {
		f.cancel()
		if f.agents != nil {
			<-f.done
		}
	}
	f.admin.close()
	if f.Fleet != nil {
		_ = f.Fleet.Close()
	}
	for _, a := range f.real {
		a.stop()
	}
	for _, m := range f.members {
		m.stop()
	}
	f.agent.stop()
	f.hub.stop()
	_ = os.Remove(filepath.Join(f.cfg.Dir, pidsFile))
	_ = os.Remove(filepath.Join(f.cfg.Dir, "env"))
}

// Member is a member's current description in the simulated member agents.
func (f *Fleet) Member(name string) (fleetfile.Member, bool) { return f.agents.Member(name) }

// UpdateMember changes a member's hub-side facts (labels, taints, health,
// properties) and reports them at once.
func (f *Fleet) UpdateMember(ctx context.Context, m fleetfile.Member) error {
	if f.agents == nil {
		return errors.New("fleet not started")
	}
	return f.agents.Update(ctx, m)
}

// startRealAgents starts KubeFleet's real member agent for every joined member with its own
// kube-apiserver, in file order, with the garbage collection it relies on (memberGC, until runCtx
// ends), and hands their Works over from the simulated agents.
func (f *Fleet) startRealAgents(ctx, runCtx context.Context) error {
	for _, m := range f.File.Members {
		srv, ok := f.members[m.Name]
		if !ok || !m.IsJoined() {
			continue
		}
		a, err := startRealMemberAgent(ctx, f.cfg, f.hub, srv, m.Name)
		if err != nil {
			return err
		}
		f.real = append(f.real, a)
		f.agents.serveWorksReally(m.Name)
		go memberGC(runCtx, srv, f.cfg.Logf)
		f.recordProcesses()
		f.cfg.Logf("member %s: KubeFleet's member agent applies its Works (log: memberagent-%s.log)", m.Name, m.Name)
	}
	return nil
}

// RealMemberAgents are the members whose Works KubeFleet's real member agent applies.
func (f *Fleet) RealMemberAgents() []string {
	out := make([]string, 0, len(f.real))
	for _, a := range f.real {
		out = append(out, a.name)
	}
	return out
}
