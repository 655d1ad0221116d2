package shared

import (
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/objectvalidator"
	"github.com/hashicorp/terraform-plugin-framework/path"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
)

// RequiredInBlock makes the named attributes of a single nested block Optional and requires them
// with the block instead (objectvalidator.AlsoRequires): terraform-plugin-framework v1.19
// validates the attributes of an absent single block too, and would report a Required one as
// missing when the whole block is left out.
func RequiredInBlock(b rschema.SingleNestedBlock, names ...string) rschema.SingleNestedBlock {
	attrs := make(map[string]rschema.Attribute, len(b.Attributes))
	for k, v := range b.Attributes {
		attrs[k] = v
	}
	exprs := make([]path.Expression, 0, len(names))
	for _, name := range names {
		const note = "Required in the block. "
		switch a := attrs[name].(type) {
		case rschema.StringAttribute:
			a.Required, a.Optional, a.Description = false, true, note+a.Description
			attrs[name] = a
		case rschema.BoolAttribute:
			a.Required, a.Optional, a.Description = false, true, note+a.Description
			attrs[name] = a
		default:
			panic(fmt.Sprintf("RequiredInBlock: %s is a %T", name, a)) // a programming error, at provider start
		}
		exprs = append(exprs, path.MatchRelative().AtName(name))
	}
	b.Attributes = attrs
	b.Validators = append(b.Validators, objectvalidator.AlsoRequires(exprs...))
	return b
}
