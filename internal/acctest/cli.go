package acctest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fleetops/terraform-provider-fleet/internal/provider"
)

// The real terraform CLI run by a test itself, where terraform-plugin-testing has no step for what
// is tested: `terraform apply -invoke=…` and the progress lines actions print, `terraform query`.
// The provider is a plugin process of its own, as for users: this test binary, which serves the
// provider when cliServeEnv is set (Main checks it first), reached through dev_overrides.

const (
	cliServeEnv     = "ACCTEST_SERVE_PROVIDER"
	providerAddress = provider.Address
	// EnvProviderClockOffset, set in a working folder's environment (Workdir.SetEnv) to a Go
	// duration, moves the served provider's clock (provider.WithClock) that far from real time: a
	// test's "time passed" between a plan and its apply without waiting for it.
	EnvProviderClockOffset = "ACCTEST_PROVIDER_CLOCK_OFFSET"
)

// serveIfPlugin serves the provider as main.go does when this process is the plugin.
func serveIfPlugin() bool {
	if os.Getenv(cliServeEnv) == "" {
		return false
	}
	var opts []provider.Option
	if v := os.Getenv(EnvProviderClockOffset); v != "" {
		offset, err := time.ParseDuration(v)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s=%q: %v\n", EnvProviderClockOffset, v, err)
			os.Exit(1)
		}
		opts = append(opts, provider.WithClock(func() time.Time { return time.Now().Add(offset) }))
	}
	if err := provider.Serve("test", nil, opts...); err != nil {
		fmt.Fprintln(os.Stderr, "serving the provider:", err)
		os.Exit(1)
	}
	return true
}

// TerraformPath is the CLI the tests run: TF_ACC_TERRAFORM_PATH (what terraform-plugin-testing
// honours; make test sets it to the Terraform it builds), else terraform on PATH.
func TerraformPath() string {
	if p := os.Getenv("TF_ACC_TERRAFORM_PATH"); p != "" {
		return p
	}
	return "terraform"
}

// Workdir is a terraform working folder with its own local state.
type Workdir struct {
	t         *testing.T
	Dir       string
	config    string
	overrides map[string]string // provider address → plugin folder
	required  map[string]string // provider address → version constraint ("": none)
	env       map[string]string // SetEnv: what the next runs add to the test's environment
}

// SetEnv sets an environment variable of the terraform runs (and the provider they serve) of this
// working folder from now on, without touching the test process's environment: parallel tests each
// plan and apply under their own. An empty value unsets what SetEnv set.
func (w *Workdir) SetEnv(key, value string) {
	if w.env == nil {
		w.env = map[string]string{}
	}
	if value == "" {
		delete(w.env, key)
		return
	}
	w.env[key] = value
}

// NewWorkdir makes a working folder with hcl (after the required_providers and provider blocks) as
// its main.tf; dev overrides need no terraform init.
func NewWorkdir(t *testing.T, hcl string) *Workdir {
	t.Helper()
	Current(t)
	w := &Workdir{t: t, Dir: t.TempDir(), overrides: map[string]string{}, required: map[string]string{}}
	w.config = filepath.Join(t.TempDir(), "terraformrc")
	w.OverrideProvider(providerAddress, "terraform-provider-fleet")
	w.Write("main.tf", hcl)
	return w
}

// OverrideProvider serves the provider at address from this test binary too, started under
// binary's name (dev_overrides): a test's TestMain tells by os.Args[0] which provider to serve
// (moveacc's azurerm stand-in).
func (w *Workdir) OverrideProvider(address, binary string) {
	w.t.Helper()
	self, err := os.Executable()
	if err != nil {
		w.t.Fatal(err)
	}
	plugins := w.t.TempDir()
	if err := os.Symlink(self, filepath.Join(plugins, binary)); err != nil {
		w.t.Fatal(err)
	}
	w.overrides[address] = plugins
	w.required[address] = ""
	var b strings.Builder
	b.WriteString("provider_installation {\n  dev_overrides {\n")
	for a, dir := range w.overrides {
		fmt.Fprintf(&b, "    %q = %q\n", a, dir)
	}
	b.WriteString("  }\n  direct {}\n}\n")
	if err := os.WriteFile(w.config, []byte(b.String()), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// Write writes a file of the working folder; main.tf gets the provider blocks first, with the
// required_providers entry of every provider it installs.
func (w *Workdir) Write(name, content string) {
	w.t.Helper()
	if name == "main.tf" {
		var req strings.Builder
		for address, constraint := range w.required {
			source := strings.TrimPrefix(address, "registry.terraform.io/")
			version := ""
			if constraint != "" {
				version = fmt.Sprintf(", version = %q", constraint)
			}
			fmt.Fprintf(&req, "    %s = { source = %q%s }\n", source[strings.LastIndex(source, "/")+1:], source, version)
		}
		content = "terraform {\n  required_providers {\n" + req.String() + "  }\n}\n\n" + ProviderConfig + content
	}
	if err := os.WriteFile(filepath.Join(w.Dir, name), []byte(content), 0o600); err != nil {
		w.t.Fatal(err)
	}
}

// Run runs terraform with args and returns its combined output and exit error.
func (w *Workdir) Run(args ...string) (string, error) {
	w.t.Helper()
	return w.RunCLI(TerraformPath(), args...)
}

// RunCLI is Run with another terraform binary: cli (the oldest Terraform the README promises).
func (w *Workdir) RunCLI(cli string, args ...string) (string, error) {
	w.t.Helper()
	cmd := exec.Command(cli, append(args, "-no-color")...)
	cmd.Dir = w.Dir
	cmd.Env = append(os.Environ(), "TF_CLI_CONFIG_FILE="+w.config, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", cliServeEnv+"=1")
	for k, v := range w.env {
		cmd.Env = append(cmd.Env, k+"="+v) // the last of duplicate keys wins
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	w.t.Logf("terraform %s: %v in %s", strings.Join(args, " "), err, time.Since(start).Round(time.Millisecond))
	transcribe(args, out.String())
	return out.String(), err
}

// transcribe appends the command and its output to ACCTEST_TRANSCRIPT when it names a file: the
// real lines the guides quote (docs/guides/operating-a-rollout.md) are taken from such a run.
func transcribe(args []string, out string) {
	path := os.Getenv("ACCTEST_TRANSCRIPT")
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintf(f, "$ terraform %s\n%s\n", strings.Join(args, " "), out)
}

// Must runs terraform and fails the test unless it succeeds.
func (w *Workdir) Must(args ...string) string {
	w.t.Helper()
	out, err := w.Run(args...)
	if err != nil {
		w.t.Fatalf("terraform %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// State is every resource's attribute values in `terraform show -json`, by address.
func (w *Workdir) State() map[string]map[string]any {
	w.t.Helper()
	var show struct {
		Values struct {
			RootModule struct {
				Resources []struct {
					Address string         `json:"address"`
					Values  map[string]any `json:"values"`
				} `json:"resources"`
			} `json:"root_module"`
		} `json:"values"`
	}
	if err := json.Unmarshal([]byte(w.Must("show", "-json")), &show); err != nil {
		w.t.Fatal(err)
	}
	byAddress := map[string]map[string]any{}
	for _, r := range show.Values.RootModule.Resources {
		byAddress[r.Address] = r.Values
	}
	return byAddress
}

// StateValues is address's attribute values in `terraform show -json`; it fails the test when
// address is not in state.
func (w *Workdir) StateValues(address string) map[string]any {
	w.t.Helper()
	values, ok := w.State()[address]
	if !ok {
		w.t.Fatalf("%s not in state", address)
	}
	return values
}

// Invalid fails the test unless `terraform validate` of hcl (a working folder's main.tf) fails with
// an error matching want (a WrappedRegexp).
func Invalid(t *testing.T, hcl, want string) {
	t.Helper()
	out, err := NewWorkdir(t, hcl).Run("validate")
	if err == nil || !WrappedRegexp(want).MatchString(out) {
		t.Errorf("validate %s: %v\n%s", hcl, err, out)
	}
}

// Lines fails the test unless out has a line matching each pattern, in order.
func Lines(t *testing.T, out string, patterns ...string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	i := 0
	for _, p := range patterns {
		re := regexp.MustCompile(p)
		for i < len(lines) && !re.MatchString(lines[i]) {
			i++
		}
		if i == len(lines) {
			t.Fatalf("no line matching %q (in order) in:\n%s", p, out)
		}
		i++
	}
}

// Warning is a warning the CLI reported with -json.
type Warning struct{ Summary, Detail string }

// JSONWarnings are the warnings of `terraform … -json` output by resource address (the human view
// folds warnings of the same summary into one).
func JSONWarnings(out string) map[string][]Warning {
	byAddress := map[string][]Warning{}
	for _, line := range strings.Split(out, "\n") {
		var msg struct {
			Type       string `json:"type"`
			Diagnostic struct {
				Severity, Summary, Detail, Address string
			} `json:"diagnostic"`
		}
		if json.Unmarshal([]byte(line), &msg) != nil || msg.Type != "diagnostic" || msg.Diagnostic.Severity != "warning" {
			continue
		}
		d := msg.Diagnostic
		byAddress[d.Address] = append(byAddress[d.Address], Warning{d.Summary, d.Detail})
	}
	return byAddress
}

// WarningOf is the first warning of address whose summary starts with prefix; it fails the test
// when there is none.
func WarningOf(t *testing.T, ws map[string][]Warning, address, prefix string) Warning {
	t.Helper()
	for _, w := range ws[address] {
		if strings.HasPrefix(w.Summary, prefix) {
			return w
		}
	}
	t.Fatalf("no warning %q… on %s; warnings: %+v", prefix, address, ws)
	return Warning{}
}
