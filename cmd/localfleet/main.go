// Command localfleet starts and stops a local fleet (SPEC §6).
//
//	localfleet up [-fleet FILE] [-dir .localfleet] [-foreground] [-heartbeat 30s] [-no-hub-agent] [-timeout 5m]
//	localfleet down [-dir .localfleet]
//
// `up` returns once the fleet is ready and keeps it running in the
// background; `<dir>/env` then holds what terraform and the tests need.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/localfleet"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "up":
		err = up(os.Args[2:])
	case "down":
		err = down(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "localfleet:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: localfleet up [-fleet FILE] [-dir DIR] [-foreground] | localfleet down [-dir DIR]")
	os.Exit(2)
}

func up(args []string) error {
	fs := flag.NewFlagSet("up", flag.ExitOnError)
	cfg := localfleet.Config{}
	fs.StringVar(&cfg.FleetFile, "fleet", "examples/quickstart/fleet.yaml", "fleet description file")
	fs.StringVar(&cfg.Dir, "dir", ".localfleet", "state directory")
	fs.StringVar(&cfg.BinDir, "bin", "bin", "directory with hubagent, memberagent and kube-apiserver")
	fs.StringVar(&cfg.FleetCRDs, "fleet-crds", "", "KubeFleet CRDs (default: go.goms.io/fleet's config/crd/bases)")
	fs.StringVar(&cfg.KarpenterCRDs, "karpenter-crds", "", "Karpenter CRDs (default: sigs.k8s.io/karpenter's pkg/apis/crds)")
	fs.DurationVar(&cfg.Heartbeat, "heartbeat", 0, "simulated member agents' heartbeat period (default 30s; up to 2m for fleets over 1,500 members)")
	fs.BoolVar(&cfg.NoHubAgent, "no-hub-agent", false, "run no hub agent: the member agents write the MemberClusters' status (as the fleet file's hub: {agent: false})")
	foreground := fs.Bool("foreground", false, "run in the foreground until SIGINT/SIGTERM")
	timeout := fs.Duration("timeout", 5*time.Minute, "how long to wait for the fleet to be ready")
	_ = fs.Parse(args)

	if err := ensureNotRunning(cfg.Dir); err != nil {
		return err
	}
	if !*foreground {
		return detach(cfg.Dir, *timeout)
	}
	var err error
	if cfg.FleetCRDs == "" {
		if cfg.FleetCRDs, err = moduleDir("go.goms.io/fleet", "config/crd/bases"); err != nil {
			return err
		}
	}
	if cfg.KarpenterCRDs == "" {
		if cfg.KarpenterCRDs, err = moduleDir("sigs.k8s.io/karpenter", "pkg/apis/crds"); err != nil {
			return err
		}
	}
	if cfg.AssetsDir, err = assets(cfg.Dir, cfg.BinDir); err != nil {
		return err
	}
	cfg.Logf = func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05.000")}, a...)...)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	startCtx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	f, err := localfleet.Start(startCtx, cfg)
	if err != nil {
		return err
	}
	cfg.Logf("local fleet %q ready: Fleet API at %s; source %s", f.File.Fleet.Name, f.Fleet.URL(), filepath.Join(cfg.Dir, "env"))
	<-ctx.Done()
	cfg.Logf("stopping")
	f.Stop()
	return nil
}

// detach re-runs `up -foreground` in its own session with its output in
// <dir>/localfleet.log and returns once <dir>/env exists.
func detach(dir string, timeout time.Duration) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	logPath := filepath.Join(dir, "localfleet.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return err
	}
	defer logf.Close()
	self, err := os.Executable()
	if err != nil {
		return err
	}
	_ = os.Remove(filepath.Join(dir, "env"))
	cmd := exec.Command(self, append([]string{"up", "-foreground"}, os.Args[2:]...)...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(timeout + 30*time.Second)
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			b, _ := os.ReadFile(logPath)
			return fmt.Errorf("the local fleet failed to start (%v):\n%s", err, tail(string(b), 40))
		case <-deadline:
			_ = localfleet.Stop(dir, 10*time.Second)
			return fmt.Errorf("the local fleet was not ready after %s; see %s", timeout, logPath)
		case <-tick.C:
			if _, err := os.Stat(filepath.Join(dir, "env")); err == nil {
				fmt.Printf("local fleet running (pid %d); log: %s\nsource %s to use it\n", cmd.Process.Pid, logPath, filepath.Join(dir, "env"))
				return nil
			}
		}
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ensureNotRunning refuses to start a second fleet in the same directory and
// cleans up after one that died without stopping its servers.
func ensureNotRunning(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, "pids.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err == nil {
		if sup := supervisorPID(b); sup > 0 && localfleet.Alive(sup) {
			return fmt.Errorf("a local fleet is already running in %s (pid %d); run `make fleet-down` first", dir, sup)
		}
	}
	return localfleet.Stop(dir, time.Second)
}

func supervisorPID(b []byte) int {
	var p localfleet.Processes
	if json.Unmarshal(b, &p) != nil {
		return 0
	}
	return p.Supervisor
}

func down(args []string) error {
	fs := flag.NewFlagSet("down", flag.ExitOnError)
	dir := fs.String("dir", ".localfleet", "state directory")
	_ = fs.Parse(args)
	if err := localfleet.Stop(*dir, 20*time.Second); err != nil {
		return err
	}
	fmt.Println("local fleet stopped")
	return nil
}

// moduleDir finds a dependency's folder in the module cache, downloading it
// if needed, so the CRDs come from the exact versions in go.mod.
func moduleDir(module, sub string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", module).Output()
	if err != nil {
		return "", fmt.Errorf("locate %s (run from the repository root): %w", module, err)
	}
	const key = `"Dir": "`
	s := string(out)
	i := strings.Index(s, key)
	if i < 0 {
		return "", fmt.Errorf("locate %s: no Dir in `go mod download -json`", module)
	}
	s = s[i+len(key):]
	return filepath.Join(s[:strings.IndexByte(s, '"')], sub), nil
}

// assets makes the folder envtest wants: kube-apiserver (built by `make
// tools`) and etcd (Debian's etcd-server).
func assets(dir, bin string) (string, error) {
	a, err := filepath.Abs(filepath.Join(dir, "assets"))
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(a, 0o700); err != nil {
		return "", err
	}
	apiserver, err := filepath.Abs(filepath.Join(bin, "kube-apiserver"))
	if err != nil {
		return "", err
	}
	etcd, err := exec.LookPath("etcd")
	if err != nil {
		return "", errors.New("etcd not found on PATH: install Debian's etcd-server (make deps)")
	}
	for name, target := range map[string]string{"kube-apiserver": apiserver, "etcd": etcd} {
		if _, err := os.Stat(target); err != nil {
			return "", fmt.Errorf("%s missing: run `make tools` (%w)", name, err)
		}
		link := filepath.Join(a, name)
		_ = os.Remove(link)
		if err := os.Symlink(target, link); err != nil {
			return "", err
		}
	}
	return a, nil
}
