// Package acctest starts the local fleet once per test binary for the
// acceptance tests, which then drive the real terraform CLI against it
// (terraform-plugin-testing) through the provider's ordinary code paths.
package acctest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Fleet is the running local fleet of this test binary.
type Fleet struct {
	Dir  string
	Env  map[string]string
	cmd  *exec.Cmd
	done chan struct{} // closed once the fleet process has exited
	err  error         // its exit status
}

var current *Fleet

// Current is the fleet Main started; tests that need it call it.
func Current(t testing.TB) *Fleet {
	t.Helper()
	if os.Getenv("TF_ACC") == "" {
		t.Skip("acceptance test: set TF_ACC=1 (make test does)")
	}
	if current == nil {
		t.Fatal("no local fleet: the package's TestMain must call acctest.Main")
	}
	return current
}

// Main starts (when TF_ACC is set) the local fleet described by fleetFile (relative to the
// repository root), exports its environment into this process, runs the
// tests and stops the fleet. The fleet runs in a child process that gets
// SIGTERM if this binary dies, so a crashed test leaves nothing behind.
func Main(m *testing.M, fleetFile string) {
	os.Exit(run(m, fleetFile))
}

// MainPollingFast is Main for a fleet whose update runs the tests wait for: the provider reads a
// run every second while it waits (30 s for users).
func MainPollingFast(m *testing.M, fleetFile string) {
	os.Setenv("FLEET_TEST_UPDATE_RUN_POLL_INTERVAL", "1s")
	Main(m, fleetFile)
}

func run(m *testing.M, fleetFile string) int {
	if serveIfPlugin() {
		return 0
	}
	if os.Getenv("TF_ACC") == "" {
		// Unit tests only: acceptance tests skip themselves without TF_ACC.
		return m.Run()
	}
	root, err := RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "acctest:", err)
		return 1
	}
	f, err := Start(root, filepath.Join(root, fleetFile))
	if err != nil {
		fmt.Fprintln(os.Stderr, "acctest:", err)
		return 1
	}
	defer f.Stop()
	for k, v := range f.Env {
		os.Setenv(k, v)
	}
	os.Setenv("CHECKPOINT_DISABLE", "1")
	// A CLI configuration that names a missing file only adds a warning to
	// every terraform run.
	if p := os.Getenv("TF_CLI_CONFIG_FILE"); p != "" {
		if _, err := os.Stat(p); err != nil {
			os.Unsetenv("TF_CLI_CONFIG_FILE")
		}
	}
	current = f
	code := m.Run()
	if err := f.checkBodies(); err != nil {
		fmt.Fprintln(os.Stderr, "acctest:", err)
		return 1
	}
	return code
}

// RepoRoot is the folder of the provider's go.mod.
func RepoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside the provider's module")
	}
	return filepath.Dir(gomod), nil
}

// Start runs `localfleet up -foreground` for fleetFile in a fresh temporary
// folder and waits until its env file is written.
func Start(root, fleetFile string) (*Fleet, error) {
	return StartWith(root, fleetFile, Options{})
}

// Options tune a fleet of thousands of members.
type Options struct {
	// Ready bounds the wait for the fleet to be ready (default 5 minutes).
	Ready time.Duration
	// Heartbeat is the simulated member agents' period (default 15 s; the hub needs one within 5
	// minutes, and thousands of members at 15 s keep two cores busy).
	Heartbeat time.Duration
}

// StartWith is Start with options.
func StartWith(root, fleetFile string, o Options) (*Fleet, error) {
	bound, heartbeat := o.Ready, o.Heartbeat
	if bound == 0 {
		bound = 5 * time.Minute
	}
	if heartbeat == 0 {
		heartbeat = 15 * time.Second
	}
	bin := filepath.Join(root, "bin")
	for _, tool := range []string{"kube-apiserver", "hubagent", "memberagent"} {
		if _, err := os.Stat(filepath.Join(bin, tool)); err != nil {
			return nil, fmt.Errorf("%s missing in %s: run `make tools` (make test does)", tool, bin)
		}
	}
	localfleet := os.Getenv("LOCALFLEET_BIN")
	if localfleet == "" {
		localfleet = filepath.Join(bin, "localfleet")
		build := exec.Command("go", "build", "-o", localfleet, "./cmd/localfleet")
		build.Dir = root
		if out, err := build.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build localfleet: %v\n%s", err, out)
		}
	}
	dir, err := os.MkdirTemp("", "localfleet-")
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, "localfleet.log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(localfleet, "up", "-foreground", "-fleet", fleetFile, "-dir", dir, "-bin", bin, "-heartbeat", heartbeat.String(), "-timeout", bound.String())
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = logf, logf
	// Pdeathsig: the fleet stops itself when this test binary dies, however it dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, err
	}
	f := &Fleet{Dir: dir, cmd: cmd, done: make(chan struct{})}
	go func() { f.err = cmd.Wait(); logf.Close(); close(f.done) }()
	start := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-f.done:
			b, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("local fleet exited (%v):\n%s", f.err, b)
		case <-time.After(bound - time.Since(start)):
			f.Stop()
			b, _ := os.ReadFile(logPath)
			return nil, fmt.Errorf("local fleet not ready after %s:\n%s", bound, b)
		case <-tick.C:
			env, err := readEnv(filepath.Join(dir, "env"))
			if err != nil {
				continue
			}
			f.Env = env
			fmt.Fprintf(os.Stderr, "acctest: local fleet ready in %s (%s)\n", time.Since(start).Round(time.Millisecond), dir)
			return f, nil
		}
	}
}

// Stop ends the fleet and removes its folder.
func (f *Fleet) Stop() {
	if f.cmd != nil && f.cmd.Process != nil {
		_ = f.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-f.done:
		case <-time.After(30 * time.Second):
		}
	}
	// Whatever is still recorded (the supervisor was killed) goes now.
	stop := exec.Command(filepath.Join(filepath.Dir(f.cmd.Path), "localfleet"), "down", "-dir", f.Dir)
	_ = stop.Run()
	_ = os.RemoveAll(f.Dir)
}

// readEnv parses the `export K="V"` lines localfleet writes.
func readEnv(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "export ")
		if !ok {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		if uq, err := strconv.Unquote(v); err == nil {
			v = uq
		}
		env[k] = v
	}
	return env, sc.Err()
}

// Eventually polls cond until it holds or bound passes; the error says what
// was awaited and what cond saw last.
func Eventually(bound time.Duration, what string, cond func() (bool, string)) error {
	deadline := time.Now().Add(bound)
	for {
		ok, last := cond()
		if ok {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not within %s (last: %s)", what, bound, last)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
