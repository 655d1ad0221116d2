package disruption

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// npDurationType is a string attribute holding a Kubernetes duration ("1h", "90m", "Never"). Values
// are compared by value, not by spelling: the state keeps the user's string when the NodePool holds
// the same duration written another way ("60m", or "1h0m0s" as Go clients write metav1.Duration),
// so such a rewrite is not drift.
type npDurationType struct{ basetypes.StringType }

var (
	_ basetypes.StringTypable                    = npDurationType{}
	_ basetypes.StringValuableWithSemanticEquals = npDuration{}
)

func (t npDurationType) Equal(o attr.Type) bool {
	_, ok := o.(npDurationType)
	return ok
}

func (t npDurationType) String() string { return "npDurationType" }

func (t npDurationType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return npDuration{StringValue: in}, nil
}

func (t npDurationType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.StringType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return npDuration{StringValue: s}, nil
}

func (t npDurationType) ValueType(context.Context) attr.Value { return npDuration{} }

// npDuration is a npDurationType value.
type npDuration struct{ basetypes.StringValue }

func (v npDuration) Equal(o attr.Value) bool {
	other, ok := o.(npDuration)
	return ok && v.StringValue.Equal(other.StringValue)
}

func (v npDuration) Type(context.Context) attr.Type { return npDurationType{} }

// StringSemanticEquals compares by value: "1h" == "60m" == "1h0m0s", "Never" only equals itself.
func (v npDuration) StringSemanticEquals(_ context.Context, other basetypes.StringValuable) (bool, diag.Diagnostics) {
	o, ok := other.(npDuration)
	if !ok {
		return false, nil
	}
	return npSameDurationText(v.ValueString(), o.ValueString()), nil
}

func npDurationNull() npDuration { return npDuration{StringValue: basetypes.NewStringNull()} }

func npDurationOf(s string) npDuration { return npDuration{StringValue: basetypes.NewStringValue(s)} }

// npDurationOrNull is the attribute value of an optional string read from the NodePool.
func npDurationOrNull(s string, ok bool) npDuration {
	if !ok {
		return npDurationNull()
	}
	return npDurationOf(s)
}

// npSameDurationText compares two duration strings by value; strings Go cannot parse compare as text.
func npSameDurationText(a, b string) bool {
	if a == b {
		return true
	}
	if a == karpv1.Never || b == karpv1.Never {
		return false
	}
	da, errA := time.ParseDuration(a)
	db, errB := time.ParseDuration(b)
	return errA == nil && errB == nil && da == db
}

// npSameDuration compares two attribute values: both null, or both known and equal by value.
func npSameDuration(a, b npDuration) bool {
	if a.IsNull() || b.IsNull() || a.IsUnknown() || b.IsUnknown() {
		return a.IsNull() == b.IsNull() && a.IsUnknown() == b.IsUnknown() && !a.IsUnknown()
	}
	return npSameDurationText(a.ValueString(), b.ValueString())
}
