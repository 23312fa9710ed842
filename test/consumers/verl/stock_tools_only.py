"""verl's stock MultiTurnSFTDataset with only the `tools` column decoded — the class hsa shipped
before HsaMultiTurnSFTDataset. The consumer test runs it to show what verl's own per-message path
does with the export (every record fails its sanity check; parallel-call records fail earlier, in
the template, on numpy arrays)."""

import json

from verl.utils.dataset.multiturn_sft_dataset import MultiTurnSFTDataset


class ToolsDecodedOnly(MultiTurnSFTDataset):
    def _read_files_and_process(self):
        super()._read_files_and_process()
        if self.tools is not None:
            self.tools = [json.loads(t) if isinstance(t, str) else t for t in self.tools]
