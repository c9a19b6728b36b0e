# Near misses of bad.loop_body_method.py.
import torch


class LongVideoPipeline:
    def schedule(self, latents):
        # Once per chunk of a long video: each chunk then runs the whole denoising loop, so
        # this small upload is spread over the inner loop's steps.
        return torch.tensor([999, 0], device=latents.device)

    def __call__(self, latents, chunks, timesteps):
        latents = latents.cuda()
        for c in range(chunks):
            bounds = self.schedule(latents)
            for t in timesteps:
                latents = self.transformer(latents, t, bounds)
        return latents


class Offloader:
    def group(self, tensors):
        tensors = [t.cuda() for t in tensors]
        for t in tensors:
            # What a checker returns is a flag about the tensor, not a tensor.
            if self.count < self.limit and self.tensor_need_offloading_checker(t):
                self.count += 1


def prepare(pipe, prompt, device):
    # Parts of a bundle named after another part plus a count's suffix are counts.
    latents, latents_frames = pipe.prepare_latents(prompt, device)
    for step in range(50):
        if step > 0 and latents_frames > 0:
            latents = pipe.denoise(latents)
    return latents


def collect(collector, env):
    # `_device` parts of a bundle are devices, not tensors: moving to them is no read.
    storing_device, env_device = collector.get_devices(env)
    out = []
    for step in range(10):
        out.append(env.step().to(storing_device))
    return out


class SequenceGenerator:
    def finalize_hypos(self, step, bbsz_idx, attn: torch.Tensor, beam_size: int, device="cuda"):
        attn_clone = attn.index_select(0, bbsz_idx)
        # One read for all finished hypotheses, before the loop.
        unfin = (bbsz_idx // beam_size).tolist()
        seen = []
        for i in range(len(unfin)):
            seen.append(str(unfin[i]))
        return attn_clone, seen
