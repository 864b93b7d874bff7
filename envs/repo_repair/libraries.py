"""The libraries the bundled tasks are made from: pure Python, suites that run in about a
second, nothing to install but pytest. Pinned by version and sdist hash (PyPI's)."""

from __future__ import annotations

from codegym.envs.repo_repair.library import Library

LIBRARIES: dict[str, Library] = {
    library.name: library
    for library in (
        Library("cachetools", "8.0.2", "30ac523adfc118b51d2b2e7bad8a0ddb31370dfe2700c7f10ca224f36ccf81e0",
                packages=("src/cachetools",), python_path=("src",)),
        Library("isodate", "0.7.2", "4cd1aa0f43ca76f4a6c6c0292a85f40b35ec2e43e315b59f06e6d32171a953e6",
                packages=("src/isodate",), python_path=("src",)),
        Library("parse", "1.22.4", "706d458feed5a81b02768d3156e8070baf6cee7d150a3a3c0cd43101a875c3b5",
                packages=("parse",)),
        Library("sqlparse", "0.6.1", "ca722573f848ff2d30e40ea30f53a104b7dea7635ea9285891263eb2c58fb6e7",
                packages=("sqlparse",)),
        Library("tinydb", "4.9.0", "6928b1fa785186bda7952a0ba05aaeedc883ede565ca9c7d608de44e5e75de70",
                packages=("tinydb",)),
        Library("toolz", "1.0.0", "2c86e3d9a04798ac556793bced838816296a2f085017664e4995cb40a1047a02",
                packages=("toolz", "tlz"), tests=("toolz/tests",)),
        Library("xmltodict", "1.0.4", "6d94c9f834dd9e44514162799d344d815a3a4faec913717a9ecbfa5be1bb8e61",
                packages=("xmltodict.py",)),
    )
}  # fmt: skip
