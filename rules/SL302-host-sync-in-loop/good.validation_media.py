# Validation that shows a few samples to people: a prediction copied to the host for wandb
# media or a plotting helper is logging (off by default, like a logger call's arguments).
import numpy as np
import torch
import wandb


def plot_alignment_to_numpy(a):
    return np.asarray(a)


class Vocoder(torch.nn.Module):
    def validation_step(self, batch, batch_idx):
        audio, audio_len = batch
        pred = self(audio.cuda(non_blocking=True))
        clips = []
        for i in range(min(5, audio.shape[0])):
            clips.append(wandb.Audio(pred[i, : audio_len[i]].cpu().numpy(), sample_rate=22050))
            clips.append(wandb.Image(plot_alignment_to_numpy(pred[i].cpu().numpy())))
        wandb.log({"audio": clips})
