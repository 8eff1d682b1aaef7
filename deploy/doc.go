// Package deploy holds how Partner Admin is shipped and run by operators,
// and the tests that check it (docs/operators.md describes it all):
//
//   - ../Containerfile, the OCI image; image_test.go builds it with buildah
//     and signs in through a container of it;
//   - kubernetes/, the manifests (kustomize); manifests_test.go checks them
//     against what the app needs;
//   - replicas_test.go starts three replicas of the binary at once on an
//     empty database: migrations are applied once and all three are ready;
//   - backup_restore_test.go runs the backup and restore drill of
//     docs/operators.md: pg_dump -Fc and the sandbox's state files,
//     pg_restore into a fresh cluster, and the same employees, proposals,
//     audit rows and sessions found through the restored app.
//   - rolling_restart_test.go restarts three replicas behind nginx one by
//     one under load: no request fails, no webhook delivery is lost or
//     processed twice, no background job is left unfinished.
//
// The package has no code of its own: only tests.
package deploy
