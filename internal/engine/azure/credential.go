package azure

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
)

// CheckConfig validates a configuration without building anything: what
// azurerm would reject before its first request. Errors are *FieldError.
func CheckConfig(c Config) error {
	if strings.TrimSpace(c.SubscriptionID) == "" {
		return &FieldError{Field: "subscription_id", Summary: "Missing Azure subscription",
			Detail: "The provider's azure block is configured but has no subscription: set azure.subscription_id or ARM_SUBSCRIPTION_ID."}
	}
	if _, ok := NormalizeEnvironment(c.Environment); !ok {
		return &FieldError{Field: "environment", Summary: "Invalid Azure environment",
			Detail: fmt.Sprintf("%q is not an Azure environment: set azure.environment or ARM_ENVIRONMENT to one of %s.", c.Environment, strings.Join(Environments, ", "))}
	}
	if c.MetadataHost != "" {
		if _, err := MetadataURL(c.MetadataHost); err != nil {
			return &FieldError{Field: "metadata_host", Summary: "Invalid Azure metadata host", Detail: err.Error(), Err: err}
		}
	}
	switch Method(c) {
	case AuthClientSecret:
		if c.TenantID == "" {
			return &FieldError{Field: "tenant_id", Summary: "Missing Azure tenant",
				Detail: "A client secret authenticates a service principal of a tenant: set azure.tenant_id or ARM_TENANT_ID."}
		}
		if c.ClientID == "" {
			return &FieldError{Field: "client_id", Summary: "Missing Azure client ID",
				Detail: "A client secret belongs to a service principal: set azure.client_id or ARM_CLIENT_ID."}
		}
	case AuthOIDC:
		if c.TenantID == "" {
			return &FieldError{Field: "tenant_id", Summary: "Missing Azure tenant",
				Detail: "OIDC authentication needs the tenant of the federated identity: set azure.tenant_id or ARM_TENANT_ID."}
		}
		if c.ClientID == "" {
			return &FieldError{Field: "client_id", Summary: "Missing Azure client ID",
				Detail: "OIDC authentication needs the client ID of the federated identity: set azure.client_id or ARM_CLIENT_ID."}
		}
		if c.OIDCToken == "" {
			if c.OIDCTokenFilePath == "" {
				return &FieldError{Field: "oidc_token_file_path", Summary: "Missing OIDC token",
					Detail: "use_oidc is set but no token is given: set azure.oidc_token_file_path or ARM_OIDC_TOKEN_FILE_PATH (or ARM_OIDC_TOKEN)."}
			}
			if _, err := os.Stat(c.OIDCTokenFilePath); err != nil {
				return &FieldError{Field: "oidc_token_file_path", Summary: "Unreadable OIDC token file",
					Detail: fmt.Sprintf("The OIDC token file cannot be read: %v", err), Err: err}
			}
		}
	case "":
		return &FieldError{Field: "use_cli", Summary: "No Azure authentication method",
			Detail: "Every authentication method is off: set azure.client_secret, or enable azure.use_oidc, azure.use_msi or azure.use_cli (or the matching ARM_* variables)."}
	}
	return nil
}

// Method is the credential azurerm would pick for c: the first configured of
// client secret, OIDC, managed identity and the Azure CLI.
func Method(c Config) AuthMethod {
	switch {
	case c.ClientSecret != "":
		return AuthClientSecret
	case c.UseOIDC:
		return AuthOIDC
	case c.UseMSI:
		return AuthMSI
	case c.UseCLI:
		return AuthCLI
	}
	return ""
}

// NewCredential builds the credential Method picks. custom is true for a
// custom cloud, whose authority is not one Microsoft Entra knows: instance
// discovery is then disabled. No request is sent here.
func NewCredential(c Config, opts azcore.ClientOptions, custom bool) (azcore.TokenCredential, AuthMethod, error) {
	if err := CheckConfig(c); err != nil {
		return nil, "", err
	}
	m := Method(c)
	switch m {
	case AuthClientSecret:
		cred, err := azidentity.NewClientSecretCredential(c.TenantID, c.ClientID, c.ClientSecret, &azidentity.ClientSecretCredentialOptions{
			ClientOptions:            opts,
			DisableInstanceDiscovery: custom,
		})
		return cred, m, err
	case AuthOIDC:
		cred, err := azidentity.NewClientAssertionCredential(c.TenantID, c.ClientID, oidcAssertion(c), &azidentity.ClientAssertionCredentialOptions{
			ClientOptions:            opts,
			DisableInstanceDiscovery: custom,
		})
		return cred, m, err
	case AuthMSI:
		o := &azidentity.ManagedIdentityCredentialOptions{ClientOptions: opts}
		if c.ClientID != "" {
			o.ID = azidentity.ClientID(c.ClientID)
		}
		cred, err := azidentity.NewManagedIdentityCredential(o)
		return cred, m, err
	case AuthCLI:
		cred, err := azidentity.NewAzureCLICredential(&azidentity.AzureCLICredentialOptions{TenantID: c.TenantID})
		return cred, m, err
	}
	return nil, "", errors.New("no Azure authentication method is enabled")
}

// oidcAssertion returns the federated token: the fixed token, or the file's
// current content (read per request: workload identity rotates the file).
func oidcAssertion(c Config) func(context.Context) (string, error) {
	if c.OIDCToken != "" {
		tok := c.OIDCToken
		return func(context.Context) (string, error) { return tok, nil }
	}
	path := c.OIDCTokenFilePath
	return func(context.Context) (string, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("reading the OIDC token file: %w", err)
		}
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return "", fmt.Errorf("the OIDC token file %s is empty", path)
		}
		return tok, nil
	}
}
