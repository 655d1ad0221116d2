package rollout

import (
	"regexp"

	"github.com/hashicorp/terraform-plugin-framework-validators/stringvalidator"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// childNameRe is fleets.json's name pattern of update runs and strategies.
var childNameRe = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// childNameValidators check the name of an update run, strategy or stage (fleets.json's pattern and length).
func childNameValidators() []validator.String {
	return []validator.String{
		stringvalidator.LengthBetween(1, 50),
		stringvalidator.RegexMatches(childNameRe, "must be lower-case letters, digits and '-', starting and ending with a letter or digit"),
	}
}
