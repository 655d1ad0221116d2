package azure

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
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
	m := Method(c)
	needIdentity := func(what string) error {
		if c.TenantID == "" {
			return &FieldError{Field: "tenant_id", Summary: "Missing Azure tenant",
				Detail: what + " signs in to a tenant: set azure.tenant_id or ARM_TENANT_ID."}
		}
		if c.ClientID == "" {
			return &FieldError{Field: "client_id", Summary: "Missing Azure client ID",
				Detail: what + " signs in as an application: set azure.client_id or ARM_CLIENT_ID."}
		}
		return nil
	}
	switch m {
	case AuthClientCertificate:
		if err := needIdentity("A client certificate"); err != nil {
			return err
		}
		if c.ClientCertificatePath != "" && c.ClientCertificate != "" {
			return &FieldError{Field: "client_certificate", Summary: "Conflicting client certificates",
				Detail: "Both client_certificate_path and client_certificate (ARM_CLIENT_CERTIFICATE_PATH, ARM_CLIENT_CERTIFICATE) are set: set one."}
		}
		if c.ClientCertificatePath != "" {
			if _, err := os.Stat(c.ClientCertificatePath); err != nil {
				return &FieldError{Field: "client_certificate_path", Summary: "Unreadable client certificate",
					Detail: fmt.Sprintf("The client certificate cannot be read: %v", err), Err: err}
			}
		}
	case AuthClientSecret:
		if err := needIdentity("A client secret"); err != nil {
			return err
		}
	case AuthOIDC, AuthOIDCGitHub, AuthOIDCAzureDevOps:
		if err := needIdentity("OIDC authentication"); err != nil {
			return err
		}
		switch {
		case m == AuthOIDCGitHub || m == AuthOIDCAzureDevOps:
			if c.OIDCRequestToken == "" {
				return &FieldError{Field: "oidc_request_token", Summary: "Missing OIDC request token",
					Detail: "oidc_request_url is set without the bearer token that authorizes it: set azure.oidc_request_token or ARM_OIDC_REQUEST_TOKEN " +
						"(GitHub Actions: ACTIONS_ID_TOKEN_REQUEST_TOKEN, with `permissions: id-token: write`; Azure DevOps: SYSTEM_ACCESSTOKEN)."}
			}
			if u, err := url.Parse(c.OIDCRequestURL); err != nil || u.Host == "" || (u.Scheme != "https" && !loopback(u.Hostname())) {
				return &FieldError{Field: "oidc_request_url", Summary: "Invalid OIDC request URL",
					Detail: fmt.Sprintf("%q is not an https URL.", c.OIDCRequestURL)}
			}
		case c.OIDCToken == "":
			if c.OIDCTokenFilePath == "" {
				return &FieldError{Field: "oidc_token_file_path", Summary: "Missing OIDC token",
					Detail: "use_oidc is set but no token is given: set azure.oidc_token_file_path or ARM_OIDC_TOKEN_FILE_PATH (or ARM_OIDC_TOKEN), " +
						"or azure.oidc_request_url and oidc_request_token (ARM_OIDC_REQUEST_URL and ARM_OIDC_REQUEST_TOKEN, as GitHub Actions and Azure DevOps provide)."}
			}
			if _, err := os.Stat(c.OIDCTokenFilePath); err != nil {
				return &FieldError{Field: "oidc_token_file_path", Summary: "Unreadable OIDC token file",
					Detail: fmt.Sprintf("The OIDC token file cannot be read: %v", err), Err: err}
			}
		}
	case AuthWorkloadIdentity:
		if err := needIdentity("AKS workload identity (AZURE_TENANT_ID, AZURE_CLIENT_ID)"); err != nil {
			return err
		}
		if c.OIDCTokenFilePath == "" {
			return &FieldError{Field: "oidc_token_file_path", Summary: "Missing federated token file",
				Detail: "use_aks_workload_identity is set but no token file is known: AKS sets AZURE_FEDERATED_TOKEN_FILE in pods whose service account has workload identity; or set azure.oidc_token_file_path."}
		}
	case "":
		return &FieldError{Field: "use_cli", Summary: "No Azure authentication method",
			Detail: "Every authentication method is off: set azure.client_secret or client_certificate_path, or enable azure.use_oidc, use_aks_workload_identity, use_msi or use_cli (or the matching ARM_* variables)."}
	}
	return nil
}

// loopback reports a loopback host (the local fleet's OIDC endpoint).
func loopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || (ip != nil && ip.IsLoopback())
}

// Method is the credential azurerm would pick for c: the first configured
// of client certificate, client secret, OIDC (a given token or token file,
// else a token requested from Azure DevOps or GitHub Actions), AKS workload
// identity, managed identity and the Azure CLI.
func Method(c Config) AuthMethod {
	switch {
	case c.ClientCertificatePath != "" || c.ClientCertificate != "":
		return AuthClientCertificate
	case c.ClientSecret != "":
		return AuthClientSecret
	case c.UseOIDC && (c.OIDCToken != "" || c.OIDCTokenFilePath != ""):
		return AuthOIDC
	case c.UseOIDC && c.OIDCRequestURL != "" && c.ADOServiceConnectionID != "":
		return AuthOIDCAzureDevOps
	case c.UseOIDC && c.OIDCRequestURL != "":
		return AuthOIDCGitHub
	case c.UseOIDC:
		return AuthOIDC
	case c.UseAKSWorkloadIdentity:
		return AuthWorkloadIdentity
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
	case AuthClientCertificate:
		data, err := certificateData(c)
		if err != nil {
			return nil, "", err
		}
		certs, key, err := azidentity.ParseCertificates(data, []byte(c.ClientCertificatePassword))
		if err != nil {
			field := "client_certificate_path"
			if c.ClientCertificate != "" {
				field = "client_certificate"
			}
			return nil, "", &FieldError{Field: field, Summary: "Invalid client certificate",
				Detail: "The client certificate must be a PKCS#12 (.pfx) bundle, or PEM with the certificate and an unencrypted key; " +
					"client_certificate_password (ARM_CLIENT_CERTIFICATE_PASSWORD) decrypts a PKCS#12 bundle: " + err.Error(), Err: err}
		}
		cred, err := azidentity.NewClientCertificateCredential(c.TenantID, c.ClientID, certs, key, &azidentity.ClientCertificateCredentialOptions{
			ClientOptions:            opts,
			DisableInstanceDiscovery: custom,
		})
		return cred, m, err
	case AuthClientSecret:
		cred, err := azidentity.NewClientSecretCredential(c.TenantID, c.ClientID, c.ClientSecret, &azidentity.ClientSecretCredentialOptions{
			ClientOptions:            opts,
			DisableInstanceDiscovery: custom,
		})
		return cred, m, err
	case AuthOIDC, AuthOIDCGitHub, AuthOIDCAzureDevOps:
		var assertion func(context.Context) (string, error)
		switch m {
		case AuthOIDCGitHub:
			assertion = githubAssertion(c, opts)
		case AuthOIDCAzureDevOps:
			assertion = adoAssertion(c, opts)
		default:
			assertion = oidcAssertion(c)
		}
		// The callback runs for every token request, so each access token
		// comes with a fresh federated token: a wait longer than a federated
		// token's lifetime (GitHub's: minutes) keeps working.
		cred, err := azidentity.NewClientAssertionCredential(c.TenantID, c.ClientID, assertion, &azidentity.ClientAssertionCredentialOptions{
			ClientOptions:            opts,
			DisableInstanceDiscovery: custom,
		})
		return cred, m, err
	case AuthWorkloadIdentity:
		cred, err := azidentity.NewWorkloadIdentityCredential(&azidentity.WorkloadIdentityCredentialOptions{
			ClientOptions:            opts,
			ClientID:                 c.ClientID,
			TenantID:                 c.TenantID,
			TokenFilePath:            c.OIDCTokenFilePath,
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

func certificateData(c Config) ([]byte, error) {
	if c.ClientCertificate != "" {
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(c.ClientCertificate))
		if err != nil {
			return nil, &FieldError{Field: "client_certificate", Summary: "Invalid client certificate",
				Detail: "client_certificate (ARM_CLIENT_CERTIFICATE) must be the base64 of a PKCS#12 or PEM bundle: " + err.Error(), Err: err}
		}
		return b, nil
	}
	b, err := os.ReadFile(c.ClientCertificatePath)
	if err != nil {
		return nil, &FieldError{Field: "client_certificate_path", Summary: "Unreadable client certificate",
			Detail: fmt.Sprintf("The client certificate cannot be read: %v", err), Err: err}
	}
	return b, nil
}

// oidcPipeline is the pipeline of the CI systems' OIDC requests: the
// session's transport, retries and request log.
func oidcPipeline(opts azcore.ClientOptions) runtime.Pipeline {
	o := opts
	o.Cloud = cloud.Configuration{}
	return runtime.NewPipeline(telemetryModule, "v"+moduleSemver, runtime.PipelineOptions{}, &o)
}

// githubAssertion requests a fresh federated token from GitHub Actions
// (GET ACTIONS_ID_TOKEN_REQUEST_URL&audience=api://AzureADTokenExchange,
// bearer ACTIONS_ID_TOKEN_REQUEST_TOKEN), as azurerm does.
func githubAssertion(c Config, opts azcore.ClientOptions) func(context.Context) (string, error) {
	pl := oidcPipeline(opts)
	return func(ctx context.Context) (string, error) {
		u, err := url.Parse(c.OIDCRequestURL)
		if err != nil {
			return "", fmt.Errorf("the OIDC request URL: %w", err)
		}
		q := u.Query()
		q.Set("audience", FederatedAudience)
		u.RawQuery = q.Encode()
		req, err := runtime.NewRequest(ctx, http.MethodGet, u.String())
		if err != nil {
			return "", err
		}
		req.Raw().Header.Set("Authorization", "Bearer "+c.OIDCRequestToken)
		req.Raw().Header.Set("Accept", "application/json")
		var body struct {
			Value string `json:"value"`
		}
		if err := doOIDC(pl, req, "GitHub Actions", &body); err != nil {
			return "", err
		}
		return body.Value, nil
	}
}

// adoAssertion requests a fresh federated token for a service connection
// from Azure DevOps (POST SYSTEM_OIDCREQUESTURI?api-version=7.1&
// serviceConnectionId=..., bearer SYSTEM_ACCESSTOKEN), as azurerm and
// azidentity's AzurePipelinesCredential do.
func adoAssertion(c Config, opts azcore.ClientOptions) func(context.Context) (string, error) {
	pl := oidcPipeline(opts)
	return func(ctx context.Context) (string, error) {
		u, err := url.Parse(c.OIDCRequestURL)
		if err != nil {
			return "", fmt.Errorf("the OIDC request URL: %w", err)
		}
		q := u.Query()
		q.Set("api-version", "7.1")
		q.Set("serviceConnectionId", c.ADOServiceConnectionID)
		u.RawQuery = q.Encode()
		req, err := runtime.NewRequest(ctx, http.MethodPost, u.String())
		if err != nil {
			return "", err
		}
		req.Raw().Header.Set("Authorization", "Bearer "+c.OIDCRequestToken)
		req.Raw().Header.Set("Accept", "application/json")
		// Answer 401 instead of a redirect to a sign-in page.
		req.Raw().Header.Set("X-TFS-FedAuthRedirect", "Suppress")
		var body struct {
			OIDCToken string `json:"oidcToken"`
		}
		if err := doOIDC(pl, req, "Azure DevOps", &body); err != nil {
			return "", err
		}
		return body.OIDCToken, nil
	}
}

func doOIDC(pl runtime.Pipeline, req *policy.Request, who string, v any) error {
	resp, err := pl.Do(req)
	if err != nil {
		return fmt.Errorf("requesting an OIDC token from %s: %w", who, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("reading the OIDC token from %s: %w", who, err)
	}
	if resp.StatusCode != http.StatusOK {
		// The body of an error names the problem; it holds no token.
		return fmt.Errorf("requesting an OIDC token from %s: %s: %s", who, resp.Status, strings.TrimSpace(string(b[:min(len(b), 512)])))
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("the OIDC token response of %s is not JSON", who)
	}
	return nil
}

// FederatedAudience is the audience Entra ID wants in federated tokens.
const FederatedAudience = "api://AzureADTokenExchange"

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
