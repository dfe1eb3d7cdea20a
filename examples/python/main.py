#!/usr/bin/env python3
"""examples/python: the library from Python. One cluster, one key, written into the app's .env
by the built-in dotenv target and into a JSON file by a secret target written in Python.

Run `cdktf deploy` here (or `python3 main.py` to synthesize only), with the key in
TF_VAR_qdrant_api_key_search_api. QDRANT_URL, QDRANT_GRPC_PORT and QDRANT_CA_FILE point the stack
at another cluster (the tests use them for a local stand-in cluster).
"""
import json
import os

import jsii
from cdktf import App, Fn, LocalExecProvisioner, TerraformStack
from cdktf_cdktf_provider_null.resource import Resource
from constructs import Construct

from cdktf_qdrant_cluster_access import (
    ApiKeyOptions,
    ClusterAccess,
    ClusterOptions,
    HealthCheckOptions,
    ISecretTarget,
    SecretTarget,
    SecretTargetBindOptions,
    SecretTargetConfig,
)

# Writes the entries named in QCA_NAMES, read from QCA_ENTRY_<i>, into QCA_PATH as one JSON object
# (mode 0600, replaced atomically). The values travel in the environment, never in the command.
WRITE_JSON = (
    "python3 -c 'import json, os; names = json.loads(os.environ[\"QCA_NAMES\"]); "
    "data = {n: os.environ[\"QCA_ENTRY_%d\" % i] for i, n in enumerate(names)}; "
    "path = os.environ[\"QCA_PATH\"]; tmp = path + \".tmp\"; "
    "fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600); "
    "os.write(fd, (json.dumps(data, indent=2) + \"\\n\").encode()); os.close(fd); os.replace(tmp, path)'"
)


@jsii.implements(ISecretTarget)
class JsonFileTarget:
    """A secret target written in Python: every entry (URLs and key) in one JSON file, written
    after the key checks passed and deleted on destroy."""

    def __init__(self, path: str) -> None:
        # Terraform runs in the stack's directory, so the write needs the absolute path. The
        # description goes into the setup guide: it keeps the path as given, the same everywhere.
        self.given = path
        self.path = os.path.abspath(path)

    @property
    def description(self) -> str:
        return f'JSON file "{self.given}"'

    def bind(self, scope: Construct, options: SecretTargetBindOptions) -> SecretTargetConfig:
        names = [entry.name for entry in options.entries]
        values = {f"QCA_ENTRY_{i}": entry.value for i, entry in enumerate(options.entries)}
        store = Resource(
            scope,
            "JsonFile",
            # Rewritten when the file, the names or a value (a rotated key) change; the state
            # keeps a hash of the values, never the values.
            triggers={
                "path": self.path,
                "names": json.dumps(names),
                "values_sha256": Fn.sha256(Fn.join("\n", [entry.value for entry in options.entries])),
            },
            # Nothing is written before every check of the keys passed.
            depends_on=options.depends_on,
            provisioners=[
                LocalExecProvisioner(
                    type="local-exec",
                    command=WRITE_JSON,
                    environment={"QCA_PATH": self.path, "QCA_NAMES": json.dumps(names), **values},
                ),
                # The path reaches the shell through the environment, quoted, never as part of the command.
                LocalExecProvisioner(
                    type="local-exec",
                    when="destroy",
                    command='rm -f -- "$QCA_PATH"',
                    environment={"QCA_PATH": "${self.triggers.path}"},
                ),
            ],
        )
        return SecretTargetConfig(dependables=[store])


class SearchStack(TerraformStack):
    def __init__(self, scope: Construct, id: str) -> None:
        super().__init__(scope, id)
        grpc_port = os.environ.get("QDRANT_GRPC_PORT")
        ClusterAccess(
            self,
            "Qdrant",
            clusters=[
                ClusterOptions(
                    name="prod-eu",
                    url=os.environ.get("QDRANT_URL", "https://abc-123.eu-central-1-0.aws.cloud.qdrant.io"),
                    grpc_port=int(grpc_port) if grpc_port else None,
                ),
            ],
            # The key comes from the sensitive variable qdrant_api_key_search_api:
            # deploy with TF_VAR_qdrant_api_key_search_api set.
            api_keys=[
                ApiKeyOptions(
                    name="search-api",
                    clusters=["prod-eu"],
                    secret_targets=[
                        SecretTarget.dotenv(path=os.environ.get("APP_ENV_FILE", ".env")),
                        JsonFileTarget(os.environ.get("APP_JSON_FILE", "qdrant.json")),
                    ],
                ),
            ],
            health_check=HealthCheckOptions(ca_file=os.environ.get("QDRANT_CA_FILE")),
        )


app = App()
SearchStack(app, "python-app")
app.synth()
