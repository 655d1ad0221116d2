module github.com/hashicorp/terraform/internal/backend/remote-state/s3

go 1.25.0

require github.com/hashicorp/terraform v1.16.0
