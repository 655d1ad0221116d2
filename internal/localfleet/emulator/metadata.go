package emulator

import "net/http"

// cloudMetadata is one cloud in ARM's metadata/endpoints shape, what
// azurerm (hashicorp/go-azure-sdk sdk/internal/metadata) reads from
// https://<ARM_METADATA_HOSTNAME>/metadata/endpoints?api-version=2022-09-01.
type cloudMetadata struct {
	Name           string `json:"name"`
	Portal         string `json:"portal"`
	Authentication struct {
		LoginEndpoint    string   `json:"loginEndpoint"`
		Audiences        []string `json:"audiences"`
		Tenant           string   `json:"tenant"`
		IdentityProvider string   `json:"identityProvider"`
	} `json:"authentication"`
	Media                    string            `json:"media"`
	GraphAudience            string            `json:"graphAudience"`
	Graph                    string            `json:"graph"`
	Suffixes                 map[string]string `json:"suffixes"`
	Batch                    string            `json:"batch"`
	ResourceManager          string            `json:"resourceManager"`
	VMImageAliasDoc          string            `json:"vmImageAliasDoc"`
	ActiveDirectoryDataLake  string            `json:"activeDirectoryDataLake"`
	SQLManagement            string            `json:"sqlManagement"`
	MicrosoftGraphResourceID string            `json:"microsoftGraphResourceId"`
	AppInsightsResourceID    string            `json:"appInsightsResourceId"`
	AppInsightsTelemetry     string            `json:"appInsightsTelemetryChannelResourceId"`
	AttestationResourceID    string            `json:"attestationResourceId"`
	SynapseResourceID        string            `json:"synapseAnalyticsResourceId"`
	LogAnalyticsResourceID   string            `json:"logAnalyticsResourceId"`
	OssrDbmsResourceID       string            `json:"ossrDbmsResourceId"`
}

// CloudName is the name the emulator's cloud has in its metadata.
const CloudName = "LocalFleet"

func (s *Server) cloudMetadata(r *http.Request) cloudMetadata {
	base := baseURL(r) + "/"
	var m cloudMetadata
	m.Name = CloudName
	m.Portal = base
	m.Authentication.LoginEndpoint = base
	m.Authentication.Audiences = []string{base}
	m.Authentication.Tenant = "common"
	m.Authentication.IdentityProvider = "AAD"
	m.Media, m.Graph, m.GraphAudience, m.Batch = base, base, base, base
	m.ResourceManager = base
	m.VMImageAliasDoc = base + "aliases.json"
	m.ActiveDirectoryDataLake, m.SQLManagement, m.MicrosoftGraphResourceID = base, base, base
	m.AppInsightsResourceID, m.AppInsightsTelemetry, m.AttestationResourceID = base, base, base
	m.SynapseResourceID, m.LogAnalyticsResourceID, m.OssrDbmsResourceID = base, base, base
	// Service DNS suffixes: none of these services exist locally; the
	// values only keep clients that require them from failing.
	m.Suffixes = map[string]string{
		"azureDataLakeStoreFileSystem":        "datalake.localfleet.invalid",
		"acrLoginServer":                      "acr.localfleet.invalid",
		"sqlServerHostname":                   "sql.localfleet.invalid",
		"azureDataLakeAnalyticsCatalogAndJob": "analytics.localfleet.invalid",
		"keyVaultDns":                         "vault.localfleet.invalid",
		"storage":                             "storage.localfleet.invalid",
		"azureFrontDoorEndpointSuffix":        "frontdoor.localfleet.invalid",
		"storageSyncEndpointSuffix":           "storagesync.localfleet.invalid",
		"mhsmDns":                             "mhsm.localfleet.invalid",
		"mysqlServerEndpoint":                 "mysql.localfleet.invalid",
		"postgresqlServerEndpoint":            "postgres.localfleet.invalid",
		"mariadbServerEndpoint":               "mariadb.localfleet.invalid",
		"synapseAnalytics":                    "synapse.localfleet.invalid",
		"attestationEndpoint":                 "attest.localfleet.invalid",
	}
	return m
}

// metadataEndpoints serves GET /metadata/endpoints. api-version 2022-09-01
// and later answer one cloud as an object (what ARM answers and what
// azurerm's go-azure-sdk decodes); older api-versions (2019-05-01,
// 2020-06-01) answer the list-of-clouds array they had.
func (s *Server) metadataEndpoints(w http.ResponseWriter, r *http.Request) {
	m := s.cloudMetadata(r)
	if v := r.URL.Query().Get("api-version"); v >= "2022-09-01" {
		writeJSON(w, http.StatusOK, m)
		return
	}
	writeJSON(w, http.StatusOK, []cloudMetadata{m})
}
