package localfleet

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"time"

	pkcs12 "software.sslmate.com/src/go-pkcs12"
)

// Environment variables of the local fleet's other identities, for tests
// and for trying the provider's sign-in flows by hand: a federated
// application (GitHub Actions / Azure DevOps OIDC requests, AKS workload
// identity tokens from the emulator's issuer) and a certificate application.
const (
	EnvFederatedClientID     = "LOCALFLEET_FEDERATED_CLIENT_ID"
	EnvOIDCRequestToken      = "LOCALFLEET_OIDC_REQUEST_TOKEN"
	EnvGitHubOIDCRequestURL  = "LOCALFLEET_GITHUB_OIDC_REQUEST_URL"
	EnvADOOIDCRequestURL     = "LOCALFLEET_ADO_OIDC_REQUEST_URL"
	EnvADOServiceConnection  = "LOCALFLEET_ADO_SERVICE_CONNECTION_ID"
	EnvCertificateClientID   = "LOCALFLEET_CERTIFICATE_CLIENT_ID"
	EnvClientCertificatePFX  = "LOCALFLEET_CLIENT_CERTIFICATE_PATH"
	EnvClientCertificatePass = "LOCALFLEET_CLIENT_CERTIFICATE_PASSWORD"
	EnvClientCertificatePEM  = "LOCALFLEET_CLIENT_CERTIFICATE_PEM_PATH"
)

// identities are the local fleet's applications besides the service
// principal with a secret.
type identities struct {
	federatedClientID, certificateClientID string
	oidcRequestToken, adoConnectionID      string
	certPEM, keyPEM                        []byte
	pfx                                    []byte
	pfxPassword                            string
}

func newIdentities() (*identities, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(now.UnixNano()),
		Subject:      pkix.Name{CommonName: "localfleet-terraform"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(365 * 24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	id := &identities{
		federatedClientID:   "00000000-0000-0000-0000-00000000000f",
		certificateClientID: "00000000-0000-0000-0000-0000000000ce",
		oidcRequestToken:    randomSecret(),
		adoConnectionID:     "00000000-0000-0000-0000-0000000000ad",
		certPEM:             pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyPEM:              pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}),
		pfxPassword:         randomSecret(),
	}
	// Legacy encryption: what azidentity's PKCS#12 decoder reads (and what
	// `az ad sp create-for-rbac --create-cert` style bundles use).
	if id.pfx, err = pkcs12.Legacy.Encode(key, cert, nil, id.pfxPassword); err != nil {
		return nil, fmt.Errorf("encoding the client certificate: %w", err)
	}
	return id, nil
}

// writeFiles writes the certificate bundles and returns their variables.
func (id *identities) writeFiles(dir, url string) (map[string]string, error) {
	pfx := filepath.Join(dir, "client-certificate.pfx")
	pemPath := filepath.Join(dir, "client-certificate.pem")
	if err := os.WriteFile(pfx, id.pfx, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(pemPath, append(append([]byte(nil), id.certPEM...), id.keyPEM...), 0o600); err != nil {
		return nil, err
	}
	return map[string]string{
		EnvFederatedClientID:     id.federatedClientID,
		EnvOIDCRequestToken:      id.oidcRequestToken,
		EnvGitHubOIDCRequestURL:  url + "/_oidc/github/token?api-version=2.0",
		EnvADOOIDCRequestURL:     url + "/_oidc/ado/oidctoken",
		EnvADOServiceConnection:  id.adoConnectionID,
		EnvCertificateClientID:   id.certificateClientID,
		EnvClientCertificatePFX:  pfx,
		EnvClientCertificatePass: id.pfxPassword,
		EnvClientCertificatePEM:  pemPath,
	}, nil
}
