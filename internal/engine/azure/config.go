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
	AuthClientSecret AuthMethod = "client_secret"
	AuthOIDC         AuthMethod = "oidc"
	AuthMSI          AuthMethod = "msi"
	AuthCLI          AuthMethod = "azure_cli"
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
	return fmt.Sprintf("azure.Config{subscription=%q tenant=%q client=%q secret=%t oidc=%t msi=%t cli=%t environment=%q metadata_host=%q}",
		c.SubscriptionID, c.TenantID, c.ClientID, c.ClientSecret != "", c.UseOIDC, c.UseMSI, c.UseCLI, c.Environment, c.MetadataHost)
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
