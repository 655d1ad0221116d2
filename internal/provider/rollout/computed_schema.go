package rollout

import (
	"github.com/hashicorp/terraform-plugin-framework/attr"
	rschema "github.com/hashicorp/terraform-plugin-framework/resource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"
)

// The computed attributes rollout's previews and statuses are built of, and their object types.

// computedStrings is a computed list of strings.
func computedStrings(description string) rschema.ListAttribute {
	return rschema.ListAttribute{Computed: true, ElementType: types.StringType, Description: description}
}

// computedStringMap is a computed map of strings.
func computedStringMap(description string) rschema.MapAttribute {
	return rschema.MapAttribute{Computed: true, ElementType: types.StringType, Description: description}
}

// computedObjects is a computed list of objects with these attributes.
func computedObjects(description string, attributes map[string]rschema.Attribute) rschema.ListNestedAttribute {
	return rschema.ListNestedAttribute{Computed: true, Description: description, NestedObject: rschema.NestedAttributeObject{Attributes: attributes}}
}

// objectType is the object type of a nested attribute, for building its
// values; a schema that is not an object is a programming error.
func objectType(t attr.Type, what string) types.ObjectType {
	o, ok := t.(types.ObjectType)
	if !ok {
		panic(what + " is not an object attribute")
	}
	return o
}
