"""Tournaments on a Dask cluster (``--cluster ADDRESS``; docs/cluster.md): owns
the connection to it and the bots' artifacts shipped to its workers.

The coordinator (``arena tournament`` or ``arena serve``) sends each match
as a Dask task with its bots' artifacts; a worker (``arena worker``) plays
it through the same arena worker process, host and sandbox as a local
``--jobs`` run, and sends back the result, the transcript and the bots'
stderr. The coordinator alone writes files and the database.
"""

from ._artifacts import ArtifactError, ShippedBot, check_shippable, pack_bot, unpack
from ._remote import ALLOW_NONE_ENV, RESOURCE, MatchRefused, WorkerUnfit
from ._session import ClusterError, ClusterLost, ClusterSession, open_cluster

__all__ = ["ALLOW_NONE_ENV", "RESOURCE", "ArtifactError", "ClusterError", "ClusterLost", "ClusterSession",
           "MatchRefused", "ShippedBot", "WorkerUnfit", "check_shippable", "open_cluster", "pack_bot", "unpack"]
