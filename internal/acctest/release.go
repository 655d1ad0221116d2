package acctest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"text/template"

	"sigs.k8s.io/yaml"
)

// The release as users install it: the provider built the way .goreleaser.yml builds it (its env,
// flags and ldflags, read from the file so the two cannot drift), placed in a filesystem mirror
// under its version, and installed by `terraform init` with a version constraint — not this test
// binary behind dev_overrides.

// goreleaserBuild is the part of .goreleaser.yml that says how the binary is built.
type goreleaserBuild struct {
	Env     []string `json:"env"`
	Main    string   `json:"main"`
	Flags   []string `json:"flags"`
	Ldflags []string `json:"ldflags"`
	Binary  string   `json:"binary"`
}

// BuildRelease builds the provider as .goreleaser.yml's first build does, for this machine's
// platform, at version, into a filesystem mirror (a folder of registry.terraform.io/<ns>/<type>/
// <version>/<os>_<arch>/) and returns the mirror's folder and the build command it ran.
func BuildRelease(t *testing.T, version string) (mirror string, command string) {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(root, ".goreleaser.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		ProjectName string            `json:"project_name"`
		Builds      []goreleaserBuild `json:"builds"`
	}
	if err := yaml.Unmarshal(raw, &cfg); err != nil {
		t.Fatalf(".goreleaser.yml: %v", err)
	}
	if len(cfg.Builds) == 0 || cfg.ProjectName == "" {
		t.Fatal(".goreleaser.yml has no build or no project_name")
	}
	b := cfg.Builds[0]
	vars := map[string]string{"Version": version, "Commit": "release-smoke-test", "ProjectName": cfg.ProjectName}
	expand := func(s string) string {
		var out bytes.Buffer
		if err := template.Must(template.New("").Option("missingkey=error").Parse(s)).Execute(&out, vars); err != nil {
			t.Fatalf(".goreleaser.yml: %q: %v", s, err)
		}
		return out.String()
	}
	mirror = t.TempDir()
	platform := runtime.GOOS + "_" + runtime.GOARCH
	dir := filepath.Join(mirror, "registry.terraform.io", "fleetops", "fleet", version, platform)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"build"}
	for _, f := range b.Flags {
		args = append(args, expand(f))
	}
	var ldflags []string
	for _, l := range b.Ldflags {
		ldflags = append(ldflags, expand(l))
	}
	args = append(args, "-ldflags", strings.Join(ldflags, " "), "-o", filepath.Join(dir, expand(b.Binary)), b.Main)
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS="+runtime.GOOS, "GOARCH="+runtime.GOARCH)
	var env []string
	for _, e := range b.Env {
		env = append(env, expand(e))
	}
	cmd.Env = append(cmd.Env, env...)
	command = strings.Join(append(env, "go "+strings.Join(args, " ")), " ")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", command, err, out)
	}
	return mirror, command
}

// NewReleaseWorkdir is a working folder whose terraform installs the provider from mirror (a
// filesystem mirror, as BuildRelease makes) under the version constraint, and nothing else
// overridden: `terraform init` must run first, as for users.
func NewReleaseWorkdir(t *testing.T, mirror, constraint, hcl string) *Workdir {
	t.Helper()
	Current(t)
	w := &Workdir{t: t, Dir: t.TempDir(), overrides: map[string]string{}, required: map[string]string{providerAddress: constraint}}
	w.config = filepath.Join(t.TempDir(), "terraformrc")
	rc := fmt.Sprintf("provider_installation {\n  filesystem_mirror {\n    path    = %q\n    include = [%q]\n  }\n  direct {\n    exclude = [%q]\n  }\n}\n",
		mirror, providerAddress, providerAddress)
	if err := os.WriteFile(w.config, []byte(rc), 0o600); err != nil {
		t.Fatal(err)
	}
	w.Write("main.tf", hcl)
	return w
}
