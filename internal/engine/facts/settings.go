package facts

import "fmt"

// Settings are the provider settings that shape a planned preview (preview_detail and the
// list limit it implies; fleet_api_version, which decides what a strategy or run may say). They
// come from the provider block or the environment (FLEET_PREVIEW_DETAIL), which Terraform reads
// again when it applies a saved plan, so the facts record them at plan and a pinned view answers
// with them: a plan made with full detail applies as reviewed under summary.
type Settings struct {
	PreviewDetail string `json:"previewDetail,omitempty"`
	ListLimit     int    `json:"listLimit"`
	// FleetAPIVersion is the Fleet API version the provider speaks; empty is the stable one.
	FleetAPIVersion string `json:"fleetAPIVersion,omitempty"`
}

// movedSettings says which preview setting differs at apply from the plan's.
func movedSettings(planned, now *Settings) []string {
	if planned == nil || now == nil || *planned == *now {
		return nil
	}
	var out []string
	if planned.PreviewDetail != now.PreviewDetail || planned.ListLimit != now.ListLimit {
		out = append(out, fmt.Sprintf("preview_detail was %s at plan and is %s now; the reviewed plan's detail is kept",
			orDefault(planned.PreviewDetail), orDefault(now.PreviewDetail)))
	}
	if planned.FleetAPIVersion != now.FleetAPIVersion {
		out = append(out, fmt.Sprintf("fleet_api_version was %s at plan and is %s now; requests are sent with %s",
			orStable(planned.FleetAPIVersion), orStable(now.FleetAPIVersion), orStable(now.FleetAPIVersion)))
	}
	return out
}

// StableFleetAPIVersion is what an empty Settings.FleetAPIVersion means (fleetapi.APIVersion;
// facts reads no client).
const StableFleetAPIVersion = "2026-06-01"

func orStable(v string) string {
	if v == "" {
		return StableFleetAPIVersion
	}
	return v
}

func orDefault(detail string) string {
	if detail == "" {
		return "summary"
	}
	return detail
}
