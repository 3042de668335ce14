"""A small Hugging Face Trainer run (a one-layer BERT made here, CPU) logging through
SignalboxCallback; prints the trainer's own log history."""
import json
import os
import sys

import torch
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

from signalbox.integrations.transformers import SignalboxCallback


class Data(torch.utils.data.Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.x = torch.randint(1, 64, (n, 8), generator=g)
        self.y = (self.x[:, 0] > 32).long()

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"input_ids": self.x[i], "attention_mask": torch.ones(8, dtype=torch.long),
                "labels": self.y[i]}


torch.manual_seed(0)
model = BertForSequenceClassification(BertConfig(
    vocab_size=64, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
    intermediate_size=32, max_position_embeddings=32, num_labels=2))
args = TrainingArguments(output_dir=os.path.join(sys.argv[1], "out"), max_steps=12,
                         learning_rate=1e-3, per_device_train_batch_size=4,
                         per_device_eval_batch_size=8, logging_steps=1, eval_strategy="steps",
                         eval_steps=6, save_strategy="steps", save_steps=6, report_to="none",
                         use_cpu=True, disable_tqdm=True, seed=0)
trainer = Trainer(model=model, args=args, train_dataset=Data(48, 1), eval_dataset=Data(16, 2),
                  callbacks=[SignalboxCallback(run="hf-run")])
trainer.train()
print(json.dumps({"log_history": trainer.state.log_history}))
