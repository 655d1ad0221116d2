package shared

// LabelSelectorModel is a `label_selector` of match_labels and match_expressions, as placements'
// resource selectors and staged update strategies' stages have it (KubeFleet's metav1.LabelSelector).
type LabelSelectorModel struct {
	MatchLabels      map[string]string      `tfsdk:"match_labels"`
	MatchExpressions []LabelExpressionModel `tfsdk:"match_expressions"`
}
