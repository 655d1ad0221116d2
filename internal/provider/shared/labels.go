package shared

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/listvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/mapvalidator"
	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
	"github.com/hashicorp/terraform-plugin-framework/types"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var // A ClusterResourcePlacement name: a DNS subdomain of at most 63 characters (KubeFleet's
// webhook: pkg/utils/validator/clusterresourceplacement.go).
DNSSubdomainRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)

// LabelExpressionsBlock is `label_expression` (or `match_expression`) blocks: a label selector's
// matchExpressions, one block each.
func LabelExpressionsBlock(what string) rschema.ListNestedBlock {
	return rschema.ListNestedBlock{
		Description: "A label requirement on " + what + ", ANDed with the labels and the other requirements (a Kubernetes label selector's matchExpressions; repeat the block for more).",
		NestedObject: rschema.NestedBlockObject{Attributes: map[string]rschema.Attribute{
			"key": rschema.StringAttribute{Required: true, Description: "The label key."},
			"operator": rschema.StringAttribute{
				Required:    true,
				Description: "`In`, `NotIn`, `Exists` or `DoesNotExist`.",
				Validators:  []validator.String{stringvalidator.OneOf("In", "NotIn", "Exists", "DoesNotExist")},
			},
			"values": rschema.ListAttribute{
				Optional: true, ElementType: types.StringType,
				Description: "The values: at least one for `In` and `NotIn`, none for `Exists` and `DoesNotExist`.",
				Validators:  []validator.List{listvalidator.NoNullValues()},
			},
		}},
	}
}

// LabelsAttribute is `labels`: a label selector's matchLabels.
func LabelsAttribute(what string) rschema.MapAttribute {
	return rschema.MapAttribute{
		Optional: true, ElementType: types.StringType,
		Description: "Labels " + what + " must have, with these values (a label selector's matchLabels).",
		Validators:  []validator.Map{mapvalidator.SizeAtLeast(1), mapvalidator.NoNullValues()},
	}
}

// LabelExpressionModel is one label_expression (match_expression) block.
type LabelExpressionModel struct {
	Key      types.String `tfsdk:"key"`
	Operator types.String `tfsdk:"operator"`
	Values   []string     `tfsdk:"values"`
}

// LabelSelector is the Kubernetes label selector of `labels` and the `label_expression` blocks (nil for neither).
func LabelSelector(matchLabels map[string]string, exprs []LabelExpressionModel) *metav1.LabelSelector {
	if len(matchLabels) == 0 && len(exprs) == 0 {
		return nil
	}
	ls := &metav1.LabelSelector{}
	if len(matchLabels) > 0 {
		ls.MatchLabels = map[string]string{}
		for k, v := range matchLabels {
			ls.MatchLabels[k] = v
		}
	}
	for _, e := range exprs {
		ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: e.Key.ValueString(), Operator: metav1.LabelSelectorOperator(e.Operator.ValueString()), Values: append([]string(nil), e.Values...),
		})
	}
	return ls
}

// LabelsFromSelector is LabelSelector's inverse.
func LabelsFromSelector(ls *metav1.LabelSelector) (map[string]string, []LabelExpressionModel) {
	if ls == nil {
		return nil, nil
	}
	var m map[string]string
	if len(ls.MatchLabels) > 0 {
		m = map[string]string{}
		for k, v := range ls.MatchLabels {
			m[k] = v
		}
	}
	var exprs []LabelExpressionModel
	for _, e := range ls.MatchExpressions {
		exprs = append(exprs, LabelExpressionModel{Key: types.StringValue(e.Key), Operator: types.StringValue(string(e.Operator)), Values: Strings(e.Values)})
	}
	return m, exprs
}

// Strings copies s; nil for empty, as state keeps an unset list.
func Strings(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return append([]string(nil), s...)
}
