"""Guards against a known-bad Qt binding: models return None from data() thousands of times a second.

PySide6 6.12.0 releases one reference to None for every None a Python
``data()`` override returns to C++, and the process dies with "deallocating
None" soon after. pyproject.toml excludes that release; this test proves the
installed one is sound.
"""

import sys

from PySide6.QtCore import QAbstractListModel, QIdentityProxyModel, QModelIndex, Qt


class _Model(QAbstractListModel):
    def rowCount(self, parent=QModelIndex()):
        return 0 if parent.isValid() else 3

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.UserRole:
            return True
        return None


def test_none_and_bools_returned_from_data_keep_their_references(qapp):
    model = _Model()
    proxy = QIdentityProxyModel()
    proxy.setSourceModel(model)
    index = proxy.index(0, 0)
    before = sys.getrefcount(None), sys.getrefcount(True)
    for _ in range(2000):
        proxy.data(index, Qt.ItemDataRole.ToolTipRole)
        proxy.data(index, Qt.ItemDataRole.UserRole)
    after = sys.getrefcount(None), sys.getrefcount(True)
    assert after[0] >= before[0] - 50 and after[1] >= before[1] - 50, (before, after)
