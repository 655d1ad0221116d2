package faultacc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/acctest"
	"github.com/fleetops/terraform-provider-fleet/internal/provider"
)

// The real terraform CLI, run by the tests themselves where
// terraform-plugin-testing cannot: two applies at once, an apply killed
// mid-wait, faults injected while an apply waits. The provider is a plugin
// process of its own, as for users: this test binary, which serves the
// provider when serveEnv is set (main.go's Serve), reached through a CLI
// configuration whose dev_overrides name a folder with a link to it.

const (
	serveEnv        = "FAULTACC_SERVE_PROVIDER"
	providerAddress = provider.Address
)

// serveProvider serves the provider as main.go does and reports whether
// this process is the plugin (serveEnv set).
func serveProvider() bool {
	if os.Getenv(serveEnv) == "" {
		return false
	}
	if err := provider.Serve("test", nil); err != nil {
		fmt.Fprintln(os.Stderr, "serving the provider:", err)
		os.Exit(1)
	}
	return true
}

// cliConfigFile writes a folder with the provider link and the CLI
// configuration that points terraform at it.
func cliConfigFile(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Symlink(self, filepath.Join(dir, "terraform-provider-fleet")); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "terraformrc")
	if err := os.WriteFile(config, fmt.Appendf(nil, "provider_installation {\n  dev_overrides {\n    %q = %q\n  }\n  direct {}\n}\n", providerAddress, dir), 0o600); err != nil {
		t.Fatal(err)
	}
	return config
}

// workdir is a terraform working folder with its own local state.
type workdir struct {
	t      *testing.T
	dir    string
	config string   // the CLI configuration
	env    []string // more environment for the terraform processes (e.g. TF_LOG_PROVIDER)
}

// newWorkdir makes a working folder with config as its main.tf; dev
// overrides need no terraform init.
func newWorkdir(t *testing.T, config string) *workdir {
	t.Helper()
	acctest.Current(t)
	w := &workdir{t: t, dir: t.TempDir(), config: cliConfigFile(t)}
	w.write(config)
	return w
}

func (w *workdir) write(config string) {
	w.t.Helper()
	hcl := "terraform {\n  required_providers {\n    fleet = { source = \"fleetops/fleet\" }\n  }\n}\n\nprovider \"fleet\" {}\n" + config
	if err := os.WriteFile(filepath.Join(w.dir, "main.tf"), []byte(hcl), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// tfRun is one terraform process.
type tfRun struct {
	args    []string
	cmd     *exec.Cmd
	out     bytes.Buffer
	started time.Time
	took    time.Duration
	err     error
}

// start starts terraform with args in its own process group (so that a kill
// reaches it the way a CI runner's cancel does).
func (w *workdir) start(args ...string) *tfRun {
	w.t.Helper()
	r := &tfRun{args: append([]string{}, args...)}
	r.cmd = exec.Command("terraform", append(args, "-no-color")...)
	r.cmd.Dir = w.dir
	r.cmd.Env = append(append(os.Environ(), "TF_CLI_CONFIG_FILE="+w.config, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", serveEnv+"=1"), w.env...)
	r.cmd.Stdout, r.cmd.Stderr = &r.out, &r.out
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	r.started = time.Now()
	if err := r.cmd.Start(); err != nil {
		w.t.Fatalf("terraform %s: %v", strings.Join(args, " "), err)
	}
	return r
}

// wait waits for the process and reports how it ended.
func (r *tfRun) wait() error {
	r.err = r.cmd.Wait()
	r.took = time.Since(r.started)
	return r.err
}

func (r *tfRun) String() string {
	return fmt.Sprintf("terraform %s: %v\n%s", strings.Join(r.args, " "), r.err, r.out.String())
}

// run runs terraform to its end.
func (w *workdir) run(args ...string) *tfRun {
	w.t.Helper()
	r := w.start(args...)
	_ = r.wait()
	w.t.Logf("terraform %s in %s: exit %v", strings.Join(args, " "), r.took.Round(time.Millisecond), r.err)
	return r
}

// must runs terraform and fails the test unless it succeeds.
func (w *workdir) must(args ...string) string {
	w.t.Helper()
	r := w.run(args...)
	if r.err != nil {
		w.t.Fatal(r)
	}
	return r.out.String()
}

// together starts every run at once and waits for all of them.
func together(t *testing.T, start ...func() *tfRun) []*tfRun {
	t.Helper()
	runs := make([]*tfRun, len(start))
	for i, s := range start {
		runs[i] = s()
	}
	for _, r := range runs {
		_ = r.wait()
	}
	return runs
}

// tfResource is a resource of `terraform show -json`.
type tfResource struct {
	Address string         `json:"address"`
	Values  map[string]any `json:"values"`
}

// resources lists the working folder's state.
func (w *workdir) resources() map[string]tfResource {
	w.t.Helper()
	var show struct {
		Values *struct {
			RootModule struct {
				Resources []tfResource `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(w.must("show", "-json")), &show); err != nil {
		w.t.Fatalf("terraform show -json: %v", err)
	}
	out := map[string]tfResource{}
	if show.Values != nil {
		for _, r := range show.Values.RootModule.Resources {
			out[r.Address] = r
		}
	}
	return out
}

// planIsEmpty reports whether a plan of the working folder has no changes.
func (w *workdir) planIsEmpty() bool {
	w.t.Helper()
	r := w.run("plan", "-input=false", "-detailed-exitcode")
	if r.cmd.ProcessState.ExitCode() == 1 {
		w.t.Fatal(r)
	}
	return r.err == nil
}

// killTree SIGKILLs the run's process group and every process descended
// from it (the provider plugin included, whatever its group), then waits
// until none of them is left. It returns how many it killed.
func killTree(t *testing.T, r *tfRun) int {
	t.Helper()
	pids := descendants(r.cmd.Process.Pid)
	pids = append(pids, r.cmd.Process.Pid)
	if err := syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill process group %d: %v", r.cmd.Process.Pid, err)
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	_ = r.wait()
	if err := acctest.Eventually(10*time.Second, "killed processes gone", func() (bool, string) {
		var alive []int
		for _, pid := range pids {
			if running(pid) {
				alive = append(alive, pid)
			}
		}
		return len(alive) == 0, fmt.Sprint("still running: ", alive)
	}); err != nil {
		t.Fatal(err)
	}
	return len(pids)
}

// descendants are the processes whose parent chain leads to pid (from /proc).
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp, _, ok := procStat(p); ok {
			parent[p] = pp
		}
	}
	var out []int
	for p := range parent {
		for q := parent[p]; q > 1; q = parent[q] {
			if q == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// running reports whether pid exists and is not a zombie.
func running(pid int) bool {
	_, state, ok := procStat(pid)
	return ok && state != "Z" && state != "X"
}

// procStat reads a process's parent and state from /proc/<pid>/stat.
func procStat(pid int) (ppid int, state string, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, "", false
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, "", false
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[0], err == nil
}
