package rollout

// What the external tests (package rollout_test) use of the package's own names.

const (
	AzurermAutoUpgradeProfileType = azurermAutoUpgradeProfileType
	AzurermUpdateRunType          = azurermUpdateRunType
	AzurermUpdateStrategyType     = azurermUpdateStrategyType
	RunStateNotStarted            = runStateNotStarted
)

type (
	AutoUpgradeProfileModel    = autoUpgradeProfileModel
	AutoUpgradeProfileResource = autoUpgradeProfileResource
	UpdateRunModel             = updateRunModel
	UpdateRunResource          = updateRunResource
	UpdateStrategyModel        = updateStrategyModel
	UpdateStrategyResource     = updateStrategyResource
)
