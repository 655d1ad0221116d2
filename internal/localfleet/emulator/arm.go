package emulator

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/fleetops/terraform-provider-fleet/internal/engine/fleetapi"
)

// armError is an error answered in ARM's shape {"error":{"code","message"}}.
type armError struct {
	status  int
	code    string
	message string
	target  string // the offending property's path, when there is one
}

func (e *armError) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.code, e.message) }

func armErrorf(status int, code, format string, args ...any) *armError {
	return &armError{status: status, code: code, message: fmt.Sprintf(format, args...)}
}

// writeARMError answers err in ARM's error shape; an error that is not an
// *armError is an internal error.
func writeARMError(w http.ResponseWriter, err error) {
	var ae *armError
	if !errors.As(err, &ae) {
		ae = armErrorf(http.StatusInternalServerError, "InternalServerError", "the local Fleet API emulator failed: %v", err)
	}
	writeJSON(w, ae.status, fleetapi.ErrorResponse{Error: &fleetapi.ErrorDetail{Code: ae.code, Message: ae.message, Target: ae.target}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b, _ = json.Marshal(fleetapi.ErrorResponse{Error: &fleetapi.ErrorDetail{Code: "InternalServerError", Message: err.Error()}})
	}
	writeRawJSON(w, status, b)
}

func writeRawJSON(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// baseURL is the emulator's address as the client reached it, so links
// (nextLink, token endpoints, operation status) work with any loopback name
// the certificate covers.
func baseURL(r *http.Request) string { return "https://" + r.Host }

// newUUID returns a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// newETag returns a fresh entity tag, quoted as the Fleet RP's are.
func newETag() string { return `"` + newUUID() + `"` }

// ARM resource IDs of the local fleet.
const providerNS = "Microsoft.ContainerService"

const (
	typeFleets                    = providerNS + "/fleets"
	typeFleetMembers              = providerNS + "/fleets/members"
	typeManagedClusters           = providerNS + "/ManagedClusters"
	typeMaintenanceConfigurations = providerNS + "/managedClusters/maintenanceConfigurations"
)

func resourceGroupID(sub, rg string) string {
	return "/subscriptions/" + sub + "/resourceGroups/" + rg
}

func fleetID(sub, rg, fleet string) string {
	return resourceGroupID(sub, rg) + "/providers/" + typeFleets + "/" + fleet
}

func memberID(sub, rg, fleet, member string) string {
	return fleetID(sub, rg, fleet) + "/members/" + member
}

func managedClusterID(sub, rg, name string) string {
	return resourceGroupID(sub, rg) + "/providers/" + providerNS + "/managedClusters/" + name
}

// normalizeLocation turns "East US" into "eastus", as ARM does.
func normalizeLocation(l string) string { return strings.ToLower(strings.ReplaceAll(l, " ", "")) }

// listResult is ARM's page of a list: {value, nextLink}.
type listResult[T any] struct {
	Value    []T    `json:"value"`
	NextLink string `json:"nextLink,omitempty"`
}
