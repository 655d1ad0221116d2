package facts

import "fmt"

// Settings are the provider settings that shape a planned preview (preview_detail and the
// list limit it implies). They come from the provider block or the environment
// (FLEET_PREVIEW_DETAIL), which Terraform reads again when it applies a saved plan, so the facts
// record them at plan and a pinned view answers with them: a plan made with full detail applies
// as reviewed under summary.
type Settings struct {
	PreviewDetail string `json:"previewDetail,omitempty"`
	ListLimit     int    `json:"listLimit"`
}

// movedSettings says which preview setting differs at apply from the plan's.
func movedSettings(planned, now *Settings) []string {
	if planned == nil || now == nil || *planned == *now {
		return nil
	}
	return []string{fmt.Sprintf("preview_detail was %s at plan and is %s now; the reviewed plan's detail is kept",
		orDefault(planned.PreviewDetail), orDefault(now.PreviewDetail))}
}

func orDefault(detail string) string {
	if detail == "" {
		return "summary"
	}
	return detail
}
