"""`orchctl convert -f FILE --output-version G/V`: no server involved (so no domain from discovery: --api-domain,
else the default)."""

from __future__ import annotations

from ..naming import DEFAULT_API_DOMAIN
from .context import CommandError, Context
from .convert import ConversionError, convert_objects
from .manifests import read_manifests
from .output import as_list, to_json, to_yaml


def run_convert(ctx: Context) -> int:
    objects = read_manifests(ctx.args.filename, recursive=ctx.args.recursive)
    if not objects:
        raise CommandError("no objects passed to convert")
    try:
        converted = convert_objects(objects, ctx.args.output_version, ctx.args.api_domain or DEFAULT_API_DOMAIN)
    except ConversionError as err:
        raise CommandError(str(err)) from err
    document = converted[0] if len(converted) == 1 else as_list(converted)
    ctx.print(to_json(document) if ctx.args.output == "json" else to_yaml(document), end="")
    return 0
