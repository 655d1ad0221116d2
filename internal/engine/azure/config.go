// Package azure holds what every Azure Resource Manager client of the
// provider shares: the cloud (public, usgovernment, china or a custom cloud
// read from its metadata host), the credential chosen the way azurerm chooses
// it, and the ARM pipeline options (azcore's retry policy, the Fleet API's
// clock read from the Date header).
package azure

import (
	"fmt"
	"strings"
)

// Environment names, as azurerm's `environment` / ARM_ENVIRONMENT.
const (
	EnvironmentPublic       = "public"
	EnvironmentUSGovernment = "usgovernment"
	EnvironmentChina        = "china"
)

// Environments lists the accepted environment names.
var Environments = []string{EnvironmentPublic, EnvironmentUSGovernment, EnvironmentChina}

// AuthMethod names the credential a Session uses (safe to log).
type AuthMethod string

const (
	AuthClientCertificate AuthMethod = "client_certificate"
	AuthClientSecret      AuthMethod = "client_secret"
	// AuthOIDC is a given federated token (ARM_OIDC_TOKEN or a token file).
	AuthOIDC AuthMethod = "oidc"
	// AuthOIDCGitHub and AuthOIDCAzureDevOps request a fresh federated token
	// from the CI system for every access token.
	AuthOIDCGitHub       AuthMethod = "oidc_github_actions"
	AuthOIDCAzureDevOps  AuthMethod = "oidc_azure_devops"
	AuthWorkloadIdentity AuthMethod = "aks_workload_identity"
	AuthMSI              AuthMethod = "msi"
	AuthCLI              AuthMethod = "azure_cli"
)

// Config is the provider's `azure` block after the environment fallbacks
// have been applied. It carries secrets: never log it or format it with %v.
type Config struct {
	SubscriptionID string
	TenantID       string
	ClientID       string
	ClientSecret   string

	// UseOIDC selects a federated token: OIDCToken (ARM_OIDC_TOKEN) or the
	// file at OIDCTokenFilePath, read again for every token request so a
	// rotated file is picked up.
	UseOIDC           bool
	OIDCToken         string
	OIDCTokenFilePath string
	// OIDCRequestURL and OIDCRequestToken reach the CI system's OIDC token
	// endpoint (GitHub Actions' ACTIONS_ID_TOKEN_REQUEST_*, Azure DevOps'
	// SYSTEM_OIDCREQUESTURI and SYSTEM_ACCESSTOKEN); with
	// ADOServiceConnectionID it is Azure DevOps.
	OIDCRequestURL         string
	OIDCRequestToken       string
	ADOServiceConnectionID string

	// ClientCertificate is a PKCS#12 or PEM bundle (certificate and key),
	// from ClientCertificatePath or base64 in ARM_CLIENT_CERTIFICATE;
	// ClientCertificatePassword decrypts a PKCS#12 bundle.
	ClientCertificatePath     string
	ClientCertificate         string
	ClientCertificatePassword string

	// UseAKSWorkloadIdentity signs in with the federated token file AKS
	// mounts (AZURE_FEDERATED_TOKEN_FILE), re-read as it rotates.
	UseAKSWorkloadIdentity bool

	UseMSI bool
	UseCLI bool

	// Environment is public (default), usgovernment or china. With
	// MetadataHost set it picks the entry of the metadata document.
	Environment  string
	MetadataHost string
}

// GoString keeps secrets out of %#v.
func (c Config) GoString() string { return c.String() }

// String describes the configuration without its secrets.
func (c Config) String() string {
	return fmt.Sprintf("azure.Config{subscription=%q tenant=%q client=%q secret=%t certificate=%t oidc=%t oidc_request=%t workload_identity=%t msi=%t cli=%t environment=%q metadata_host=%q}",
		c.SubscriptionID, c.TenantID, c.ClientID, c.ClientSecret != "", c.ClientCertificatePath != "" || c.ClientCertificate != "",
		c.UseOIDC, c.OIDCRequestURL != "", c.UseAKSWorkloadIdentity, c.UseMSI, c.UseCLI, c.Environment, c.MetadataHost)
}

// NormalizeEnvironment lower-cases name and maps "" to public. It reports
// whether the name is one of Environments.
func NormalizeEnvironment(name string) (string, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "" {
		return EnvironmentPublic, true
	}
	for _, e := range Environments {
		if n == e {
			return n, true
		}
	}
	return n, false
}

// FieldError is a configuration error that belongs to one attribute of the
// azure block (Field is its name, e.g. "tenant_id").
type FieldError struct {
	Field   string
	Summary string
	Detail  string
	Err     error
}

func (e *FieldError) Error() string {
	msg := "azure." + e.Field + ": " + e.Summary
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	return msg
}

func (e *FieldError) Unwrap() error { return e.Err }
