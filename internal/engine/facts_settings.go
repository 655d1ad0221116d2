package engine

import "fmt"

// PreviewSettings are the provider settings that shape a planned preview (preview_detail and the
// list limit it implies). They come from the provider block or the environment
// (FLEET_PREVIEW_DETAIL), which Terraform reads again when it applies a saved plan, so the facts
// record them at plan and a pinned view answers with them: a plan made with full detail applies
// as reviewed under summary.
type PreviewSettings struct {
	PreviewDetail string `json:"previewDetail,omitempty"`
	ListLimit     int    `json:"listLimit"`
}

func (c *Clients) previewSettings() *PreviewSettings {
	return &PreviewSettings{PreviewDetail: c.o.PreviewDetail, ListLimit: c.o.ListLimit}
}

// WithSettings is the bundle with s's preview settings (nil: its own), sharing its connections,
// inventory and facts: apply computes "the preview now" with the reviewed detail, so a changed
// setting is not taken for a moved fleet.
func (c *Clients) WithSettings(s *PreviewSettings) *Clients {
	if s == nil {
		return c
	}
	out := *c
	out.o.PreviewDetail, out.o.ListLimit = s.PreviewDetail, s.ListLimit
	return &out
}

// movedSettings says which preview setting differs at apply from the plan's.
func movedSettings(planned, now *PreviewSettings) []string {
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
