"""examples/python: the application side. After `cdktf deploy`, its .env holds QDRANT_URL,
QDRANT_GRPC_URL and QDRANT_API_KEY; this reads them with python-dotenv and lists the collections
with the official client. Run: python3 app.py [path/to/.env]
"""
import os
import sys

from dotenv import dotenv_values
from qdrant_client import QdrantClient


def main() -> None:
    env = dotenv_values(sys.argv[1] if len(sys.argv) > 1 else ".env")
    client = QdrantClient(
        url=env["QDRANT_URL"],
        api_key=env["QDRANT_API_KEY"],
        # An extra CA (only for a cluster with a private CA, such as the tests' stand-in);
        # Qdrant Cloud needs none.
        verify=os.environ.get("QDRANT_CA_FILE", True),
    )
    names = sorted(c.name for c in client.get_collections().collections)
    print("collections: " + ", ".join(names))


if __name__ == "__main__":
    main()
