package azure

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"

	// The arm runtime package fills in the ResourceManager service of the
	// well-known clouds; CloudForEnvironment relies on it.
	_ "github.com/Azure/azure-sdk-for-go/sdk/azcore/arm/runtime"
)

// MetadataAPIVersion is the api-version of the metadata endpoints document
// azurerm (go-azure-sdk) reads for a custom cloud.
const MetadataAPIVersion = "2022-09-01"

// metadataNames maps our environment names to the cloud names of the
// metadata document.
var metadataNames = map[string]string{
	EnvironmentPublic:       "AzureCloud",
	EnvironmentUSGovernment: "AzureUSGovernment",
	EnvironmentChina:        "AzureChinaCloud",
}

// CloudForEnvironment returns the configuration of a well-known cloud.
func CloudForEnvironment(environment string) (cloud.Configuration, error) {
	env, ok := NormalizeEnvironment(environment)
	if !ok {
		return cloud.Configuration{}, fmt.Errorf("unknown Azure environment %q: expected one of %s", environment, strings.Join(Environments, ", "))
	}
	var c cloud.Configuration
	switch env {
	case EnvironmentUSGovernment:
		c = cloud.AzureGovernment
	case EnvironmentChina:
		c = cloud.AzureChina
	default:
		c = cloud.AzurePublic
	}
	return copyCloud(c), nil
}

func copyCloud(c cloud.Configuration) cloud.Configuration {
	services := make(map[cloud.ServiceName]cloud.ServiceConfiguration, len(c.Services))
	for k, v := range c.Services {
		services[k] = v
	}
	return cloud.Configuration{ActiveDirectoryAuthorityHost: c.ActiveDirectoryAuthorityHost, Services: services}
}

// MetadataURL is the URL of a metadata host's endpoints document. host is a
// host name with an optional port (azurerm's metadata_host); an https://
// prefix and a trailing slash are tolerated.
func MetadataURL(host string) (string, error) {
	h := strings.TrimSpace(host)
	if strings.HasPrefix(strings.ToLower(h), "http://") {
		return "", fmt.Errorf("metadata host %q must be reached over https", host)
	}
	if len(h) >= len("https://") && strings.EqualFold(h[:len("https://")], "https://") {
		h = h[len("https://"):]
	}
	h = strings.TrimRight(h, "/")
	if h == "" || strings.ContainsAny(h, "/?#@ ") {
		return "", fmt.Errorf("metadata host %q is not a host name (with an optional port)", host)
	}
	u := url.URL{Scheme: "https", Host: h, Path: "/metadata/endpoints", RawQuery: "api-version=" + MetadataAPIVersion}
	return u.String(), nil
}

// metadataEntry is the part of a metadata document entry the provider uses.
type metadataEntry struct {
	Name            string `json:"name"`
	ResourceManager string `json:"resourceManager"`
	Authentication  struct {
		LoginEndpoint string   `json:"loginEndpoint"`
		Audiences     []string `json:"audiences"`
	} `json:"authentication"`
}

// ParseMetadata reads a metadata endpoints document: a JSON array of cloud
// entries, or one object (older hosts). It takes the entry named after the
// environment (public is AzureCloud, usgovernment AzureUSGovernment, china
// AzureChinaCloud; a literal entry name also matches), or else the first.
func ParseMetadata(body []byte, environment string) (cloud.Configuration, string, error) {
	body = bytes.TrimPrefix(bytes.TrimSpace(body), []byte("\xef\xbb\xbf"))
	var entries []metadataEntry
	if len(body) > 0 && body[0] == '[' {
		if err := json.Unmarshal(body, &entries); err != nil {
			return cloud.Configuration{}, "", fmt.Errorf("parsing the metadata document: %w", err)
		}
	} else {
		var one metadataEntry
		if err := json.Unmarshal(body, &one); err != nil {
			return cloud.Configuration{}, "", fmt.Errorf("parsing the metadata document: %w", err)
		}
		entries = []metadataEntry{one}
	}
	if len(entries) == 0 {
		return cloud.Configuration{}, "", fmt.Errorf("the metadata document lists no cloud")
	}
	chosen := entries[0]
	want := strings.TrimSpace(environment)
	if alias, ok := metadataNames[strings.ToLower(want)]; ok {
		want = alias
	}
	if want != "" {
		for _, e := range entries {
			if strings.EqualFold(e.Name, want) || strings.EqualFold(e.Name, environment) {
				chosen = e
				break
			}
		}
	}
	rm := strings.TrimRight(strings.TrimSpace(chosen.ResourceManager), "/")
	login := strings.TrimSpace(chosen.Authentication.LoginEndpoint)
	if rm == "" {
		return cloud.Configuration{}, "", fmt.Errorf("cloud %q of the metadata document has no resourceManager endpoint", chosen.Name)
	}
	if u, err := url.Parse(rm); err != nil || u.Scheme != "https" || u.Host == "" {
		return cloud.Configuration{}, "", fmt.Errorf("cloud %q of the metadata document has resourceManager %q, not an https URL", chosen.Name, chosen.ResourceManager)
	}
	if login == "" {
		return cloud.Configuration{}, "", fmt.Errorf("cloud %q of the metadata document has no authentication.loginEndpoint", chosen.Name)
	}
	if u, err := url.Parse(login); err != nil || u.Scheme != "https" || u.Host == "" {
		return cloud.Configuration{}, "", fmt.Errorf("cloud %q of the metadata document has authentication.loginEndpoint %q, not an https URL", chosen.Name, login)
	}
	if len(chosen.Authentication.Audiences) == 0 || strings.TrimSpace(chosen.Authentication.Audiences[0]) == "" {
		return cloud.Configuration{}, "", fmt.Errorf("cloud %q of the metadata document has no authentication.audiences", chosen.Name)
	}
	if !strings.HasSuffix(login, "/") {
		login += "/"
	}
	return cloud.Configuration{
		ActiveDirectoryAuthorityHost: login,
		Services: map[cloud.ServiceName]cloud.ServiceConfiguration{
			cloud.ResourceManager: {Endpoint: rm, Audience: strings.TrimSpace(chosen.Authentication.Audiences[0])},
		},
	}, chosen.Name, nil
}

// metadataRetryOptions retry the metadata document like any ARM call,
// except that a refused connection is final: the host (often the local
// fleet) is not running, and Configure says so at once.
func metadataRetryOptions() policy.RetryOptions {
	o := retryOptions()
	o.ShouldRetry = func(resp *http.Response, err error) bool {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return false
		}
		return ShouldRetry(resp, err)
	}
	return o
}

// FetchCloud reads the cloud configuration of a custom cloud from
// https://<host>/metadata/endpoints. The request goes through azcore's
// pipeline (retries, the caller's context); TLS is verified with the system
// roots, which SSL_CERT_FILE extends, unless transport says otherwise.
func FetchCloud(ctx context.Context, host, environment string, transport policy.Transporter) (cloud.Configuration, error) {
	u, err := MetadataURL(host)
	if err != nil {
		return cloud.Configuration{}, err
	}
	pl := runtime.NewPipeline(telemetryModule, "v"+moduleSemver, runtime.PipelineOptions{}, &policy.ClientOptions{
		Transport:        transport,
		Retry:            metadataRetryOptions(),
		Telemetry:        policy.TelemetryOptions{ApplicationID: ApplicationID},
		PerRetryPolicies: []policy.Policy{LogPolicy()},
	})
	req, err := runtime.NewRequest(ctx, http.MethodGet, u)
	if err != nil {
		return cloud.Configuration{}, err
	}
	req.Raw().Header.Set("Accept", "application/json")
	resp, err := pl.Do(req)
	if err != nil {
		return cloud.Configuration{}, fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return cloud.Configuration{}, fmt.Errorf("GET %s: reading the response: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return cloud.Configuration{}, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	c, _, err := ParseMetadata(body, environment)
	if err != nil {
		return cloud.Configuration{}, fmt.Errorf("GET %s: %w", u, err)
	}
	return c, nil
}
