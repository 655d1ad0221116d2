package member

// What the external tests (package member_test) use of the package's own names.

const AzurermFleetMemberType = azurermFleetMemberType

type (
	FleetMemberModel = fleetMemberModel
	MemberResource   = memberResource
)
