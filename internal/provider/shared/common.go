package shared

import (
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
)

// TimeString formats times the way every preview and status does: RFC 3339 in UTC.
func TimeString(t time.Time) types.String {
	if t.IsZero() {
		return types.StringNull()
	}
	return types.StringValue(t.UTC().Format(time.RFC3339))
}

// Deref is *p, or T's zero value for nil.
func Deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// ObjectType is the object type of a nested attribute, for building its
// values; a schema that is not an object is a programming error.
func ObjectType(t attr.Type, what string) types.ObjectType {
	o, ok := t.(types.ObjectType)
	if !ok {
		panic(what + " is not an object attribute")
	}
	return o
}

const (
	WaitNone      = "none"
	WaitStarted   = "started"
	WaitCompleted = "completed"
)

// StringOrNull is s, or null for "" (the Fleet API omits what is unset).
func StringOrNull(s string) types.String {
	if s == "" {
		return types.StringNull()
	}
	return types.StringValue(s)
}

// ObjectAsOptions decodes a computed object into a model.
var ObjectAsOptions = basetypes.ObjectAsOptions{}

// Shown is a value in a difference: a scalar as JSON, a list or object in a few words.
func Shown(v any, b []byte) string {
	switch v := v.(type) {
	case nil:
		return "unset"
	case []any:
		return fmt.Sprintf("a list of %d", len(v))
	case map[string]any:
		return "set"
	}
	return string(b)
}
