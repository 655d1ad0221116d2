// Package kube builds client-go clients from kubeconfig-style attributes,
// the way the kubernetes provider does (config_path + config_context through
// clientcmd's loading rules, overridden by host, token, certificates,
// insecure and an exec plugin), or from a kubeconfig document (the Fleet
// API's listCredentials, AKS's listClusterUserCredential).
package kube

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ExecConfig is the exec credential plugin of a connection.
type ExecConfig struct {
	APIVersion string
	Command    string
	Args       []string
	Env        map[string]string
}

// ExecAPIVersions are the client.authentication.k8s.io versions client-go
// runs.
var ExecAPIVersions = []string{"client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"}

// Config holds one connection's attributes, named as the kubernetes
// provider names them. It carries secrets: never log it with %v.
type Config struct {
	ConfigPath string
	// ConfigPaths are kubeconfig files merged as KUBECONFIG merges them
	// (the first file that sets a value wins); exclusive with ConfigPath.
	ConfigPaths          []string
	ConfigContext        string
	Host                 string
	Token                string
	ClusterCACertificate string
	ClientCertificate    string
	ClientKey            string
	Insecure             bool
	// ProxyURL is the proxy of every request to the API server (http,
	// https or socks5); TLSServerName is the name the server's certificate
	// is checked against instead of the host's.
	ProxyURL      string
	TLSServerName string
	Exec          *ExecConfig
}

// IsZero reports that nothing is set: the connection is not configured.
func (c Config) IsZero() bool {
	return c.ConfigPath == "" && len(c.ConfigPaths) == 0 && c.ConfigContext == "" && c.Host == "" && c.Token == "" &&
		c.ClusterCACertificate == "" && c.ClientCertificate == "" && c.ClientKey == "" && !c.Insecure &&
		c.ProxyURL == "" && c.TLSServerName == "" && c.Exec == nil
}

// String describes the connection without its secrets.
func (c Config) String() string {
	var parts []string
	if c.ConfigPath != "" {
		parts = append(parts, "config_path="+c.ConfigPath)
	}
	if len(c.ConfigPaths) != 0 {
		parts = append(parts, "config_paths="+strings.Join(c.ConfigPaths, string(filepath.ListSeparator)))
	}
	if c.ConfigContext != "" {
		parts = append(parts, "config_context="+c.ConfigContext)
	}
	if c.Host != "" {
		parts = append(parts, "host="+c.Host)
	}
	if c.Token != "" {
		parts = append(parts, "token=(set)")
	}
	if c.ClientCertificate != "" {
		parts = append(parts, "client_certificate=(set)")
	}
	if c.ClientKey != "" {
		parts = append(parts, "client_key=(set)")
	}
	if c.ClusterCACertificate != "" {
		parts = append(parts, "cluster_ca_certificate=(set)")
	}
	if c.Insecure {
		parts = append(parts, "insecure=true")
	}
	if c.ProxyURL != "" {
		parts = append(parts, "proxy_url=(set)")
	}
	if c.TLSServerName != "" {
		parts = append(parts, "tls_server_name="+c.TLSServerName)
	}
	if c.Exec != nil {
		parts = append(parts, "exec="+c.Exec.Command)
	}
	return "kube.Config{" + strings.Join(parts, " ") + "}"
}

// GoString keeps secrets out of %#v.
func (c Config) GoString() string { return c.String() }

// AttributeError is an error caused by one attribute of a connection
// (Attribute is its name, e.g. "config_path").
type AttributeError struct {
	Attribute string
	Summary   string
	Err       error
}

func (e *AttributeError) Error() string { return e.Attribute + ": " + e.Err.Error() }
func (e *AttributeError) Unwrap() error { return e.Err }

func attrErr(attr, summary string, err error) error {
	return &AttributeError{Attribute: attr, Summary: summary, Err: err}
}

// ErrNotConfigured is returned for a Config with nothing set.
var ErrNotConfigured = errors.New("no connection attributes are set")

// RESTConfig builds the client configuration of c. Errors that belong to
// an attribute are *AttributeError. No request is sent (an exec plugin runs
// at the first request).
func RESTConfig(c Config) (*rest.Config, error) {
	if c.IsZero() {
		return nil, ErrNotConfigured
	}
	loader := &clientcmd.ClientConfigLoadingRules{}
	overrides := &clientcmd.ConfigOverrides{}

	if c.ConfigPath != "" && len(c.ConfigPaths) != 0 {
		return nil, attrErr("config_paths", "Conflicting kubeconfig settings", errors.New("config_path and config_paths are both set: set one of them"))
	}
	paths := c.ConfigPaths
	attr := "config_paths"
	if c.ConfigPath != "" {
		paths, attr = []string{c.ConfigPath}, "config_path"
	}
	if len(paths) != 0 {
		var (
			expanded []string
			contexts = map[string]bool{}
		)
		for _, cp := range paths {
			p, err := expandHome(cp)
			if err != nil {
				return nil, attrErr(attr, "Invalid kubeconfig path", err)
			}
			// Read each once here so an unreadable file is reported with the
			// OS's own error, naming the path.
			data, err := os.ReadFile(p)
			if err != nil {
				return nil, attrErr(attr, "Cannot read kubeconfig", err)
			}
			raw, err := clientcmd.Load(data)
			if err != nil {
				return nil, attrErr(attr, "Invalid kubeconfig", fmt.Errorf("parsing %s: %w", p, err))
			}
			for n := range raw.Contexts {
				contexts[n] = true
			}
			expanded = append(expanded, p)
		}
		if len(expanded) == 1 {
			loader.ExplicitPath = expanded[0]
		} else {
			loader.Precedence = expanded
		}
		if c.ConfigContext != "" {
			if !contexts[c.ConfigContext] {
				names := make([]string, 0, len(contexts))
				for n := range contexts {
					names = append(names, n)
				}
				sort.Strings(names)
				return nil, attrErr("config_context", "Unknown kubeconfig context",
					fmt.Errorf("context %q is not in %s (contexts: %s)", c.ConfigContext, strings.Join(expanded, ", "), strings.Join(names, ", ")))
			}
			overrides.CurrentContext = c.ConfigContext
		}
	} else if c.ConfigContext != "" {
		return nil, attrErr("config_context", "Context without kubeconfig", errors.New("config_context selects a context of the kubeconfig at config_path, which is not set"))
	}
	if c.ProxyURL != "" {
		u, err := url.Parse(c.ProxyURL)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https" && u.Scheme != "socks5") {
			return nil, attrErr("proxy_url", "Invalid proxy URL", errors.New("proxy_url must be an http://, https:// or socks5:// URL with a host"))
		}
		overrides.ClusterInfo.ProxyURL = c.ProxyURL
	}
	if c.TLSServerName != "" {
		overrides.ClusterInfo.TLSServerName = c.TLSServerName
	}

	if c.Insecure {
		if c.ClusterCACertificate != "" {
			return nil, attrErr("insecure", "Conflicting TLS settings", errors.New("insecure skips the verification that cluster_ca_certificate is for: set one of them"))
		}
		overrides.ClusterInfo.InsecureSkipTLSVerify = true
	}
	if c.ClusterCACertificate != "" {
		if !x509.NewCertPool().AppendCertsFromPEM([]byte(c.ClusterCACertificate)) {
			return nil, attrErr("cluster_ca_certificate", "Invalid cluster CA certificate", errors.New("no PEM-encoded certificate found"))
		}
		overrides.ClusterInfo.CertificateAuthorityData = []byte(c.ClusterCACertificate)
	}
	switch {
	case c.ClientCertificate != "" && c.ClientKey == "":
		return nil, attrErr("client_key", "Missing client key", errors.New("client_certificate is set without client_key"))
	case c.ClientKey != "" && c.ClientCertificate == "":
		return nil, attrErr("client_certificate", "Missing client certificate", errors.New("client_key is set without client_certificate"))
	case c.ClientCertificate != "":
		if _, err := tls.X509KeyPair([]byte(c.ClientCertificate), []byte(c.ClientKey)); err != nil {
			return nil, attrErr("client_key", "Invalid client certificate or key", err)
		}
		overrides.AuthInfo.ClientCertificateData = []byte(c.ClientCertificate)
		overrides.AuthInfo.ClientKeyData = []byte(c.ClientKey)
	}
	if c.Host != "" {
		// As the kubernetes provider: the server must be a full URL because
		// overrides come too late for client-go's own defaulting.
		hasCA := len(overrides.ClusterInfo.CertificateAuthorityData) != 0
		hasCert := len(overrides.AuthInfo.ClientCertificateData) != 0
		defaultTLS := hasCA || hasCert || overrides.ClusterInfo.InsecureSkipTLSVerify
		u, _, err := rest.DefaultServerURL(c.Host, "", schema.GroupVersion{}, defaultTLS)
		if err != nil {
			return nil, attrErr("host", "Invalid host", err)
		}
		overrides.ClusterInfo.Server = u.String()
	}
	if c.Token != "" {
		overrides.AuthInfo.Token = c.Token
	}
	if c.Exec != nil {
		if c.Exec.Command == "" {
			return nil, attrErr("exec", "Missing exec command", errors.New("exec.command is required"))
		}
		if !validExecAPIVersion(c.Exec.APIVersion) {
			return nil, attrErr("exec", "Invalid exec api_version", fmt.Errorf("api_version %q: expected one of %s", c.Exec.APIVersion, strings.Join(ExecAPIVersions, ", ")))
		}
		e := &clientcmdapi.ExecConfig{
			APIVersion:      c.Exec.APIVersion,
			Command:         c.Exec.Command,
			Args:            append([]string(nil), c.Exec.Args...),
			InteractiveMode: clientcmdapi.IfAvailableExecInteractiveMode,
		}
		names := make([]string, 0, len(c.Exec.Env))
		for k := range c.Exec.Env {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			e.Env = append(e.Env, clientcmdapi.ExecEnvVar{Name: k, Value: c.Exec.Env[k]})
		}
		overrides.AuthInfo.Exec = e
	}

	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(loader, overrides).ClientConfig()
	if err != nil {
		return nil, classify(c, err)
	}
	// Catch what client-go would only find at the first request (CA and
	// key data of the kubeconfig itself).
	if _, err := rest.TLSConfigFor(cfg); err != nil {
		return nil, classify(c, err)
	}
	return cfg, nil
}

// classify names the attribute behind a clientcmd error where it can.
func classify(c Config, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "insecure"):
		return attrErr("insecure", "Conflicting TLS settings", err)
	case clientcmd.IsEmptyConfig(err) || strings.Contains(msg, "no server found") || strings.Contains(msg, "server"):
		if c.ConfigPath != "" {
			return attrErr("config_path", "Incomplete kubeconfig", err)
		}
		if len(c.ConfigPaths) != 0 {
			return attrErr("config_paths", "Incomplete kubeconfig", err)
		}
		return attrErr("host", "Missing host", fmt.Errorf("set host or config_path: %w", err))
	case c.ConfigPath != "":
		return attrErr("config_path", "Invalid kubeconfig", err)
	case len(c.ConfigPaths) != 0:
		return attrErr("config_paths", "Invalid kubeconfig", err)
	}
	return attrErr("host", "Invalid connection settings", err)
}

func validExecAPIVersion(v string) bool {
	for _, a := range ExecAPIVersions {
		if v == a {
			return true
		}
	}
	return false
}

// expandHome expands a leading ~ as the kubernetes provider (go-homedir) does.
func expandHome(p string) (string, error) {
	if p != "~" && !strings.HasPrefix(p, "~/") && !strings.HasPrefix(p, "~"+string(filepath.Separator)) {
		return p, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("expanding %s: %w", p, err)
	}
	return filepath.Join(home, p[1:]), nil
}

// FromKubeconfig builds the client configuration of a kubeconfig document's
// current context.
func FromKubeconfig(data []byte) (*rest.Config, error) {
	if len(strings.TrimSpace(string(data))) == 0 {
		return nil, errors.New("the kubeconfig is empty")
	}
	cfg, err := clientcmd.RESTConfigFromKubeConfig(data)
	if err != nil {
		return nil, fmt.Errorf("invalid kubeconfig: %w", err)
	}
	return cfg, nil
}

// CheckServed refuses what a kubeconfig returned by an API (the Fleet API's
// listCredentials, AKS's listClusterUserCredential) must not make the
// provider do on its own: run a command (an exec plugin or an auth
// provider; Azure's kubelogin is replaced before this check) or skip TLS
// verification. Both happen only when the user configures them.
func CheckServed(cfg *rest.Config) error {
	switch {
	case cfg.ExecProvider != nil:
		return fmt.Errorf("the kubeconfig asks to run the command %q for credentials; the provider runs commands only from its own configuration (exec)", cfg.ExecProvider.Command)
	case cfg.AuthProvider != nil:
		return fmt.Errorf("the kubeconfig asks for the auth provider %q, which the provider does not run", cfg.AuthProvider.Name)
	case cfg.Insecure:
		return errors.New("the kubeconfig turns TLS verification off (insecure-skip-tls-verify); the provider skips verification only when its own insecure attribute says so")
	}
	return nil
}
